# A Passportal Documents API client written the way the public PowerShell clients are: a token
# from a form-encoded call with X-KEY and X-HASH, Invoke-RestMethod with x-access-token, the
# clients paged, documents/all crawled per type and client until a page comes back empty. It
# stands in for your own client: the tests beside it drive it against the fake.

$script:Passportal = @{ BaseUrl = $null; KeyId = $null; Secret = $null; Token = $null }

# The document types the crawl walks (the documented template types).
$script:PassportalTypes = @('asset', 'active_directory', 'application', 'backup', 'email', 'file_sharing', 'contact',
    'location', 'internet', 'lan', 'printing', 'remote_access', 'vendor', 'virtualization', 'voice', 'wireless',
    'licencing', 'custom', 'ssl')

function Connect-Passportal {
    param(
        [Parameter(Mandatory)] [string] $BaseUrl,
        [Parameter(Mandatory)] [string] $KeyId,
        [Parameter(Mandatory)] [string] $Secret
    )
    $script:Passportal.BaseUrl = $BaseUrl.TrimEnd('/')
    $script:Passportal.KeyId = $KeyId
    $script:Passportal.Secret = $Secret
    $script:Passportal.Token = $null
    Get-PassportalAccessToken
}

function Get-PassportalAccessToken {
    $content = [guid]::NewGuid().ToString('N')
    $hmac = New-Object System.Security.Cryptography.HMACSHA256 (, [Text.Encoding]::UTF8.GetBytes($script:Passportal.Secret))
    $hash = -join ($hmac.ComputeHash([Text.Encoding]::UTF8.GetBytes($content)) | ForEach-Object { $_.ToString('x2') })
    $headers = @{ 'X-KEY' = $script:Passportal.KeyId; 'X-HASH' = $hash }
    $body = @{ content = $content; scope = 'docs_api' }
    $answer = Invoke-RestMethod -Uri "$($script:Passportal.BaseUrl)/api/v2/auth/client_token" -Method Post -Headers $headers -Body $body
    $script:Passportal.Token = $answer.access_token
}

function Invoke-PassportalRequest {
    # One API call: a 503 is retried (three tries), a 401 (the token expired) gets a new token once.
    param([string] $Path, [string] $Method = 'Get', $Body)
    $renewed = $false
    for ($try = 1; ; $try++) {
        $call = @{ Uri = "$($script:Passportal.BaseUrl)/api/v2/$Path"; Method = $Method; Headers = @{ 'x-access-token' = $script:Passportal.Token } }
        if ($null -ne $Body) {
            $call['Body'] = ConvertTo-Json -InputObject $Body -Depth 10
            $call['ContentType'] = 'application/json'
        }
        try {
            return Invoke-RestMethod @call
        } catch {
            $status = 0
            if ($_.Exception.Response) { $status = [int]$_.Exception.Response.StatusCode }
            if ($status -eq 503 -and $try -lt 3) { Start-Sleep -Milliseconds 100; continue }
            if ($status -eq 401 -and -not $renewed) { $renewed = $true; Get-PassportalAccessToken; continue }
            throw
        }
    }
}

function Get-PassportalClient {
    param([int] $PageSize = 100)
    for ($page = 1; ; $page++) {
        $answer = Invoke-PassportalRequest "documents/clients?resultsPerPage=$PageSize&pageNum=$page"
        if (@($answer.results).Count -eq 0) { break }
        $answer.results
    }
}

function Get-PassportalDocumentAll {
    # Every document the key can see: per type and per client, page by page until a page is empty.
    param([int] $PageSize = 100)
    foreach ($client in Get-PassportalClient) {
        foreach ($type in $script:PassportalTypes) {
            for ($page = 1; ; $page++) {
                $answer = Invoke-PassportalRequest "documents/all?type=$type&clientId=$($client.id)&resultsPerPage=$PageSize&pageNum=$page"
                if (@($answer.results).Count -eq 0) { break }
                $answer.results
            }
        }
    }
}

function Get-PassportalDocument {
    param([Parameter(Mandatory)] [long] $Id)
    Invoke-PassportalRequest "documents/$Id"
}

function Update-PassportalDocumentTitle {
    # One batch update: a new title for each document (id => title).
    param([Parameter(Mandatory)] [hashtable] $Titles, [Parameter(Mandatory)] [string] $TemplateUid)
    $items = foreach ($id in $Titles.Keys) { @{ templateUid = $TemplateUid; id = $id; title = $Titles[$id] } }
    Invoke-PassportalRequest 'documents' -Method Patch -Body @($items)
}
