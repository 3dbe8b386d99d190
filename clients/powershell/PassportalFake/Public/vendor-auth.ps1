function New-PassportalHash {
    <#
    .SYNOPSIS
    The x-hash of a token call: HMAC-SHA256 of the content keyed with the secret access key, as lower-case hex.
    .PARAMETER Secret
    The secret access key.
    .PARAMETER Content
    The body's content value (any string the client chooses).
    .EXAMPLE
    New-PassportalHash -Secret secret -Content api-content-hash
    # adb7d285c09c582d25e57ab006b0a5607e317fdd90d56d782ae602f521ec6e5f
    #>
    [CmdletBinding()]
    [OutputType([string])]
    [System.Diagnostics.CodeAnalysis.SuppressMessageAttribute('PSUseShouldProcessForStateChangingFunctions', '', Justification = 'computes a hash from its arguments; changes nothing')]
    param(
        [Parameter(Mandatory)] [string] $Secret,
        [Parameter(Mandatory)] [AllowEmptyString()] [string] $Content
    )
    $hmac = New-Object System.Security.Cryptography.HMACSHA256 (, [System.Text.Encoding]::UTF8.GetBytes($Secret))
    try {
        $bytes = $hmac.ComputeHash([System.Text.Encoding]::UTF8.GetBytes($Content))
    } finally {
        $hmac.Dispose()
    }
    -join ($bytes | ForEach-Object { $_.ToString('x2') })
}

function Get-PassportalFakeToken {
    <#
    .SYNOPSIS
    The vendor's token call (POST /api/v2/auth/client_token) against a fake or session: returns access_token, refresh_token, expiry_time.
    .DESCRIPTION
    Sends x-key and x-hash (New-PassportalHash of -Content) with the body as JSON, as the
    vendor's documentation shows it (no notice), or form-encoded with -Form, as many public
    PowerShell clients send it (the fake serves it, with a notice). A refusal throws with the
    fake's message.
    .PARAMETER KeyId
    The API key's ID; default: the fake's or session's KeyId.
    .PARAMETER Secret
    Its secret; default: the fake's or session's Secret.
    .PARAMETER Content
    The content the hash covers; default: a new random string.
    .PARAMETER Scope
    The scope sent; default docs_api.
    .PARAMETER Form
    Send the body form-encoded (application/x-www-form-urlencoded) instead of JSON.
    .PARAMETER Json
    Send the body as JSON: the default; kept for scripts that pass it.
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $token = ($session | Get-PassportalFakeToken).access_token
    #>
    [CmdletBinding()]
    [OutputType([System.Management.Automation.PSObject])]
    param(
        [string] $KeyId,
        [string] $Secret,
        [string] $Content = ([guid]::NewGuid().ToString('N')),
        [string] $Scope = 'docs_api',
        [switch] $Form,
        [switch] $Json,
        [Parameter(ValueFromPipeline)] [Alias('Session', 'Url')] $Fake
    )
    process {
        $source = $Fake
        if ($null -eq $source) { $source = $script:CurrentFake }
        $target = Resolve-FakeTarget $source
        if (-not $KeyId -and $source -isnot [string]) { $KeyId = $source.KeyId }
        if (-not $Secret -and $source -isnot [string]) { $Secret = $source.Secret }
        if (-not $KeyId -or -not $Secret) { throw 'No API key: pass -KeyId and -Secret, or a fake or session that has KeyId and Secret.' }
        $hash = New-PassportalHash -Secret $Secret -Content $Content
        $client = Get-AdminHttpClient
        $request = New-Object System.Net.Http.HttpRequestMessage([System.Net.Http.HttpMethod]::Post, "$($target.BaseUrl)/api/v2/auth/client_token")
        $request.Headers.Add('x-key', $KeyId)
        $request.Headers.Add('x-hash', $hash)
        if ($Form -and $Json) { throw 'Give -Form or -Json, not both.' }
        if (-not $Form) {
            $request.Content = New-Object System.Net.Http.StringContent((ConvertTo-FakeJson @{ scope = $Scope; content = $Content }), [System.Text.Encoding]::UTF8, 'application/json')
        } else {
            $pairs = New-Object 'System.Collections.Generic.List[System.Collections.Generic.KeyValuePair[string,string]]'
            $pairs.Add((New-Object 'System.Collections.Generic.KeyValuePair[string,string]' ('scope', $Scope)))
            $pairs.Add((New-Object 'System.Collections.Generic.KeyValuePair[string,string]' ('content', $Content)))
            $request.Content = New-Object System.Net.Http.FormUrlEncodedContent (, $pairs)
        }
        try {
            $response = $client.SendAsync($request).GetAwaiter().GetResult()
            $text = $response.Content.ReadAsStringAsync().GetAwaiter().GetResult()
            $status = [int]$response.StatusCode
            $response.Dispose()
        } finally {
            $request.Dispose()
        }
        $answer = $null
        try { $answer = ConvertFrom-Json -InputObject $text } catch { $answer = $null }
        if ($status -ne 200) {
            $message = $text
            if ($answer -and $answer.PSObject.Properties.Name -contains 'message') { $message = $answer.message }
            throw "The token call answered $status`: $message"
        }
        $answer
    }
}
