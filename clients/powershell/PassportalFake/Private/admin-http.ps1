# The module's one HTTP path to the admin API: an HttpClient that never uses a proxy (the admin
# API is on the machine running the tests), JSON written with depth 100, answers never thrown as
# web exceptions: a 2xx is returned parsed, anything else becomes an error naming the call and
# the fake's own message.
#
# Failures are error records with stable ids and categories: PassportalFake.ConnectionFailed
# (ConnectionError: nothing answers), PassportalFake.Http<status> (404: ObjectNotFound; 400 and
# 422: InvalidArgument; 401 and 403: PermissionDenied; 429: LimitsExceeded; others:
# InvalidOperation) and PassportalFake.NoFake (InvalidArgument). Given the calling command
# (-Cmdlet, its $PSCmdlet), a refused connection and a 404 (the fake or the item named is not
# there) are non-terminating, written through WriteError so -ErrorAction and -ErrorVariable
# apply and the next piped item is tried; the rest stop the command (ThrowTerminatingError).
# Nothing is thrown and caught on the way, so -ErrorVariable holds each failure once.

$script:AdminHttp = $null
$script:CurrentFake = $null

function Get-AdminHttpClient {
    if ($null -eq $script:AdminHttp) {
        Add-Type -AssemblyName System.Net.Http
        $handler = New-Object System.Net.Http.HttpClientHandler
        $handler.UseProxy = $false
        $script:AdminHttp = New-Object System.Net.Http.HttpClient($handler)
        $script:AdminHttp.Timeout = [TimeSpan]::FromSeconds(120)
    }
    $script:AdminHttp
}

function ConvertTo-FakeJson {
    param($Value)
    if ($Value -is [string]) { return $Value }
    ConvertTo-Json -InputObject $Value -Depth 100 -Compress
}

function Resolve-FakeTarget {
    # A fake (Start-PassportalFake), a session (New-PassportalFakeSession), or a URL (the root's
    # or a session's base URL, with or without /__admin); none: the fake started last.
    param($Fake)
    if ($null -eq $Fake) { $Fake = $script:CurrentFake }
    if ($null -eq $Fake) {
        throw (New-FakeError 'PassportalFake.NoFake' InvalidArgument 'No fake given: pass -Fake (from Start-PassportalFake), -Session (from New-PassportalFakeSession) or -Url, or start one with Start-PassportalFake first.' $null)
    }
    if ($Fake -is [string] -or $Fake -is [uri]) {
        $base = ([string]$Fake).TrimEnd('/')
        if ($base.EndsWith('/__admin')) { $base = $base.Substring(0, $base.Length - 8) }
        $root = $base
        $index = $base.IndexOf('/sessions/')
        if ($index -ge 0) { $root = $base.Substring(0, $index) }
        return New-FakeTarget $base "$base/__admin" $root $null
    }
    $names = $Fake.PSObject.Properties.Name
    if ($names -notcontains 'BaseUrl') {
        throw (New-FakeError 'PassportalFake.NoFake' InvalidArgument "Not a fake, a session or a URL: an object with a BaseUrl property is expected (got $($Fake.GetType().FullName))." $Fake)
    }
    $base = ([string]$Fake.BaseUrl).TrimEnd('/')
    $admin = "$base/__admin"
    if ($names -contains 'AdminUrl' -and $Fake.AdminUrl) { $admin = ([string]$Fake.AdminUrl).TrimEnd('/') }
    $root = $base
    if ($names -contains 'RootUrl' -and $Fake.RootUrl) { $root = ([string]$Fake.RootUrl).TrimEnd('/') }
    $token = $null
    if ($names -contains 'AdminToken') { $token = $Fake.AdminToken }
    New-FakeTarget $base $admin $root $token
}

function New-FakeError {
    # An error record with a stable id and category, its exception an InvalidOperationException.
    param([string] $Id, [System.Management.Automation.ErrorCategory] $Category, [string] $Message, $Target)
    $exception = New-Object System.InvalidOperationException($Message)
    New-Object System.Management.Automation.ErrorRecord($exception, $Id, $Category, $Target)
}

function Write-FakeFailure {
    # Reports a failed admin call: without -Cmdlet, throws the record; with it, writes a refused
    # connection or a 404 as a non-terminating error of that command, and stops it for the rest.
    param($Cmdlet, [System.Management.Automation.ErrorRecord] $Record)
    if ($null -eq $Cmdlet) { throw $Record }
    if ($Record.FullyQualifiedErrorId -in @('PassportalFake.ConnectionFailed', 'PassportalFake.Http404')) {
        $Cmdlet.WriteError($Record)
    } else {
        $Cmdlet.ThrowTerminatingError($Record)
    }
}

function Get-HttpErrorCategory {
    param([int] $Status)
    switch ($Status) {
        404 { return [System.Management.Automation.ErrorCategory]::ObjectNotFound }
        { $_ -in 400, 422 } { return [System.Management.Automation.ErrorCategory]::InvalidArgument }
        { $_ -in 401, 403 } { return [System.Management.Automation.ErrorCategory]::PermissionDenied }
        429 { return [System.Management.Automation.ErrorCategory]::LimitsExceeded }
    }
    [System.Management.Automation.ErrorCategory]::InvalidOperation
}

function New-FakeTarget {
    param([string] $BaseUrl, [string] $AdminUrl, [string] $RootUrl, [string] $AdminToken)
    $target = Add-FakeTypeName ([PassportalFakeTarget]::new()) 'PassportalFake.Target'
    $target.BaseUrl = $BaseUrl
    $target.AdminUrl = $AdminUrl
    $target.RootUrl = $RootUrl
    $target.AdminToken = $AdminToken
    $target
}

function Invoke-FakeAdmin {
    # One admin call: METHOD on {AdminUrl}{Path} (or the root's admin API with -Root). Returns the
    # parsed JSON (or the text with -Raw); a non-2xx answer fails "<METHOD> <path> answered
    # <status>: <the fake's message>" (Write-FakeFailure, as the calling -Cmdlet's error when
    # given), and returns nothing. -AllowNotFound returns $null on 404.
    param(
        [Parameter(Mandatory)] $Target,
        [Parameter(Mandatory)] [string] $Method,
        [Parameter(Mandatory)] [string] $Path,
        $Body,
        [switch] $Raw,
        [switch] $Root,
        [switch] $AllowNotFound,
        $Cmdlet
    )
    $client = Get-AdminHttpClient
    $admin = $Target.AdminUrl
    if ($Root) { $admin = "$($Target.RootUrl)/__admin" }
    $url = "$admin$Path"
    $request = New-Object System.Net.Http.HttpRequestMessage([System.Net.Http.HttpMethod]::new($Method), $url)
    if ($Target.AdminToken) {
        $request.Headers.Authorization = New-Object System.Net.Http.Headers.AuthenticationHeaderValue('Bearer', $Target.AdminToken)
    }
    if ($PSBoundParameters.ContainsKey('Body')) {
        $request.Content = New-Object System.Net.Http.StringContent((ConvertTo-FakeJson $Body), [System.Text.Encoding]::UTF8, 'application/json')
    }
    # Waited for without throwing, so a refused connection is reported, never thrown and caught.
    $task = $client.SendAsync($request)
    [void][System.Threading.Tasks.Task]::WaitAny([System.Threading.Tasks.Task[]]@($task))
    if ($task.IsFaulted -or $task.IsCanceled) {
        $request.Dispose()
        $inner = $task.Exception
        if ($null -eq $inner) { $reason = 'the call timed out' } else {
            while ($null -ne $inner.InnerException) { $inner = $inner.InnerException }
            $reason = $inner.Message
        }
        Write-FakeFailure $Cmdlet (New-FakeError 'PassportalFake.ConnectionFailed' ConnectionError "$Method $url failed: $reason (is the fake running? Start-PassportalFake starts one)" $url)
        return
    }
    $response = $task.Result
    try {
        $text = $response.Content.ReadAsStringAsync().GetAwaiter().GetResult()
        $status = [int]$response.StatusCode
    } finally {
        $response.Dispose()
        $request.Dispose()
    }
    if ($status -eq 404 -and $AllowNotFound) { return $null }
    if ($status -lt 200 -or $status -ge 300) {
        $message = $text
        try {
            $parsed = ConvertFrom-Json -InputObject $text
            if ($parsed.PSObject.Properties.Name -contains 'message') { $message = $parsed.message }
            if ($parsed.PSObject.Properties.Name -contains 'errors') {
                $details = @($parsed.errors) | Select-Object -First 10 | ForEach-Object { "$($_.location): $($_.message)" }
                if ($details) { $message = "$message ($($details -join '; '))" }
            }
        } catch { $message = $text }
        if ($message.Length -gt 2000) { $message = $message.Substring(0, 2000) + '...' }
        Write-FakeFailure $Cmdlet (New-FakeError "PassportalFake.Http$status" (Get-HttpErrorCategory $status) "$Method $url answered $status`: $message" $url)
        return
    }
    if ($Raw) { return $text }
    if ([string]::IsNullOrWhiteSpace($text)) { return $null }
    ConvertFrom-Json -InputObject $text
}

function Get-QueryString {
    param([System.Collections.IDictionary] $Query)
    $parts = @()
    foreach ($key in $Query.Keys) {
        $value = $Query[$key]
        if ($null -eq $value -or $value -eq '') { continue }
        if ($value -is [bool]) { $value = ([string]$value).ToLowerInvariant() }
        $parts += ([uri]::EscapeDataString($key) + '=' + [uri]::EscapeDataString([string]$value))
    }
    if ($parts.Count -eq 0) { return '' }
    '?' + ($parts -join '&')
}

function ConvertTo-Hashtable {
    # A hashtable of the bound parameters that have a value, renamed: @{ ParamName = 'jsonKey' }.
    param([System.Collections.IDictionary] $Bound, [System.Collections.IDictionary] $Names)
    $out = [ordered]@{}
    foreach ($name in $Names.Keys) {
        if ($Bound.ContainsKey($name)) {
            $value = $Bound[$name]
            if ($value -is [System.Management.Automation.SwitchParameter]) { $value = $value.IsPresent }
            $out[$Names[$name]] = $value
        }
    }
    $out
}
