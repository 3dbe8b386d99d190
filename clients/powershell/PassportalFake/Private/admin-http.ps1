# The module's one HTTP path (Send-FakeHttp), for the admin API, the health check and the token
# call: an HttpClient that never uses a proxy (the fake is on the machine running the tests), JSON
# written with depth 100, answers never thrown as web exceptions. An admin call's 2xx is returned
# parsed, anything else becomes an error naming the call and the fake's own message.
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
    # A command's -Fake as a PassportalFakeTarget (already one when PowerShell bound it); none:
    # the fake started last. Fails PassportalFake.NoFake (InvalidArgument) when there is none or
    # what is given names no fake, session or URL.
    param($Fake)
    if ($null -eq $Fake) { $Fake = $script:CurrentFake }
    if ($Fake -is [PassportalFakeTarget]) { return $Fake }
    $problem = [PassportalFakeTarget]::Problem($Fake)
    if ($problem) { throw (New-FakeError 'PassportalFake.NoFake' InvalidArgument $problem $Fake) }
    [PassportalFakeTarget]::new([object]$Fake)
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

function Send-FakeHttp {
    # One HTTP request through the module's client, the only place the module sends one: METHOD
    # on -Url with -Headers, and a body as JSON (-Json: any value, written by ConvertTo-FakeJson)
    # or form-encoded (-Form: names and values, in order). Answers Status and Text, or, when no
    # answer comes (refused, timed out), Status 0 and the Failure's reason: waited for without
    # throwing, so a refused connection is reported, never thrown and caught.
    param(
        [Parameter(Mandatory)] [string] $Method,
        [Parameter(Mandatory)] [string] $Url,
        [System.Collections.IDictionary] $Headers = @{},
        $Json,
        [System.Collections.IDictionary] $Form
    )
    $request = New-Object System.Net.Http.HttpRequestMessage([System.Net.Http.HttpMethod]::new($Method), $Url)
    try {
        foreach ($name in $Headers.Keys) { [void]$request.Headers.TryAddWithoutValidation($name, [string]$Headers[$name]) }
        if ($PSBoundParameters.ContainsKey('Json')) {
            $request.Content = New-Object System.Net.Http.StringContent((ConvertTo-FakeJson $Json), [System.Text.Encoding]::UTF8, 'application/json')
        } elseif ($PSBoundParameters.ContainsKey('Form')) {
            $pairs = New-Object 'System.Collections.Generic.List[System.Collections.Generic.KeyValuePair[string,string]]'
            foreach ($name in $Form.Keys) { $pairs.Add((New-Object 'System.Collections.Generic.KeyValuePair[string,string]' ($name, [string]$Form[$name]))) }
            $request.Content = New-Object System.Net.Http.FormUrlEncodedContent (, $pairs)
        }
        $task = (Get-AdminHttpClient).SendAsync($request)
        [void][System.Threading.Tasks.Task]::WaitAny([System.Threading.Tasks.Task[]]@($task))
        if ($task.IsFaulted -or $task.IsCanceled) {
            $inner = $task.Exception
            if ($null -eq $inner) { return [pscustomobject]@{ Status = 0; Text = $null; Failure = 'the call timed out' } }
            while ($null -ne $inner.InnerException) { $inner = $inner.InnerException }
            return [pscustomobject]@{ Status = 0; Text = $null; Failure = $inner.Message }
        }
        $response = $task.Result
        try {
            $text = $response.Content.ReadAsStringAsync().GetAwaiter().GetResult()
            [pscustomobject]@{ Status = [int]$response.StatusCode; Text = $text; Failure = $null }
        } finally {
            $response.Dispose()
        }
    } finally {
        $request.Dispose()
    }
}

function Get-FakeAnswerMessage {
    # The fake's message in an answer's text (its `message`, with -Details the first ten
    # `errors` as "location: message"), or the text itself when it holds none.
    param([string] $Text, [switch] $Details)
    $message = $Text
    try {
        $parsed = ConvertFrom-Json -InputObject $Text
        if ($parsed.PSObject.Properties.Name -contains 'message') { $message = $parsed.message }
        if ($Details -and $parsed.PSObject.Properties.Name -contains 'errors') {
            $lines = @($parsed.errors) | Select-Object -First 10 | ForEach-Object { "$($_.location): $($_.message)" }
            if ($lines) { $message = "$message ($($lines -join '; '))" }
        }
    } catch { $message = $Text }
    $message
}

function Invoke-FakeAdmin {
    # One admin call: METHOD on {AdminUrl}{Path} (or the root's admin API with -Root). Returns the
    # parsed JSON (or the text with -Raw); a non-2xx answer fails "<METHOD> <path> answered
    # <status>: <the fake's message>" (Write-FakeFailure, as the calling -Cmdlet's error when
    # given), and returns nothing. -AllowNotFound returns $null on 404.
    param(
        [Parameter(Mandatory)] [PassportalFakeTarget] $Target,
        [Parameter(Mandatory)] [string] $Method,
        [Parameter(Mandatory)] [string] $Path,
        $Body,
        [switch] $Raw,
        [switch] $Root,
        [switch] $AllowNotFound,
        $Cmdlet
    )
    $admin = $Target.AdminUrl
    if ($Root) { $admin = "$($Target.RootUrl)/__admin" }
    $url = "$admin$Path"
    $send = @{ Method = $Method; Url = $url; Headers = @{} }
    if ($Target.AdminToken) { $send.Headers['Authorization'] = "Bearer $($Target.AdminToken)" }
    if ($PSBoundParameters.ContainsKey('Body')) { $send['Json'] = $Body }
    $answer = Send-FakeHttp @send
    if ($answer.Failure) {
        Write-FakeFailure $Cmdlet (New-FakeError 'PassportalFake.ConnectionFailed' ConnectionError "$Method $url failed: $($answer.Failure) (is the fake running? Start-PassportalFake starts one)" $url)
        return
    }
    $status = $answer.Status
    if ($status -eq 404 -and $AllowNotFound) { return $null }
    if ($status -lt 200 -or $status -ge 300) {
        $message = Get-FakeAnswerMessage $answer.Text -Details
        if ($message.Length -gt 2000) { $message = $message.Substring(0, 2000) + '...' }
        Write-FakeFailure $Cmdlet (New-FakeError "PassportalFake.Http$status" (Get-HttpErrorCategory $status) "$Method $url answered $status`: $message" $url)
        return
    }
    if ($Raw) { return $answer.Text }
    if ([string]::IsNullOrWhiteSpace($answer.Text)) { return $null }
    ConvertFrom-Json -InputObject $answer.Text
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
