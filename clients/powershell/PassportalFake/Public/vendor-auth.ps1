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
    PowerShell clients send it (the fake serves it, with a notice). A refusal stops the command
    with the fake's message ("The token call answered 401: ..."; error id
    PassportalFake.Http<status>, category PermissionDenied for 401 and 403).
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
        [Parameter(ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake
    )
    process {
        $target = Resolve-FakeTarget $Fake
        $origin = $target.Origin
        if (-not $KeyId -and $null -ne $origin) { $KeyId = $origin.KeyId }
        if (-not $Secret -and $null -ne $origin) { $Secret = $origin.Secret }
        if (-not $KeyId -or -not $Secret) {
            $PSCmdlet.ThrowTerminatingError((New-FakeError 'PassportalFake.NoKey' InvalidArgument 'No API key: pass -KeyId and -Secret, or a fake or session that has KeyId and Secret.' $target))
        }
        if ($Form -and $Json) {
            $PSCmdlet.ThrowTerminatingError((New-FakeError 'PassportalFake.FormAndJson' InvalidArgument 'Give -Form or -Json, not both.' $null))
        }
        $url = "$($target.BaseUrl)/api/v2/auth/client_token"
        $send = @{ Method = 'POST'; Url = $url; Headers = [ordered]@{ 'x-key' = $KeyId; 'x-hash' = (New-PassportalHash -Secret $Secret -Content $Content) } }
        $body = [ordered]@{ scope = $Scope; content = $Content }
        if ($Form) { $send['Form'] = $body } else { $send['Json'] = $body }
        $sent = Send-FakeHttp @send
        if ($sent.Failure) {
            $PSCmdlet.ThrowTerminatingError((New-FakeError 'PassportalFake.ConnectionFailed' ConnectionError "The token call (POST $url) failed: $($sent.Failure) (is the fake running? Start-PassportalFake starts one)" $url))
        }
        if ($sent.Status -ne 200) {
            $PSCmdlet.ThrowTerminatingError((New-FakeError "PassportalFake.Http$($sent.Status)" (Get-HttpErrorCategory $sent.Status) "The token call answered $($sent.Status)`: $(Get-FakeAnswerMessage $sent.Text)" $url))
        }
        $answer = $null
        try { $answer = ConvertFrom-Json -InputObject $sent.Text } catch { $answer = $null }
        $answer
    }
}
