function Start-PassportalFake {
    <#
    .SYNOPSIS
    Starts the Passportal Documents API fake (the npm command or the container image) on a free port.

    .DESCRIPTION
    Starts the fake, waits until GET /__admin/health answers, and returns an object describing
    it: BaseUrl (the API), AdminUrl, KeyId and Secret (the first API key of its fixtures),
    ProxyUrl (the fake as a forward proxy for the vendor's hosts), CaCertPath (with -Https) and
    what Stop-PassportalFake needs. Every other command of this module uses the fake started
    last when given no -Fake, -Session or -Url.

    The fake's proxy is started with PROXY_AUTH=challenge: a request through the proxy without
    proxy credentials gets 407 with Proxy-Authenticate: Basic, which is what makes .NET (and so
    Invoke-RestMethod) send the credentials of HTTPS_PROXY or -ProxyCredential. Reach the root
    through the proxy with the user 'root' (ProxyUrl does), a session with its id (a session's
    ProxyUrl).

    A start that fails throws with the fake's own error output.

    .PARAMETER Fixtures
    A fixture set: a JSON file or a folder of per-kind files. Default: the bundled set.

    .PARAMETER Port
    The HTTP port. Default: a free port.

    .PARAMETER Image
    Start this container image (docker or podman) instead of the npm command.

    .PARAMETER UseNode
    Start the npm command (node dist/start.js, or passportal-docs-fake on PATH). The default when -Image is not given.

    .PARAMETER Https
    Also serve HTTPS with certificates from the fake's CA, and proxy the vendor's hosts; the CA's
    certificate is saved to CaCertPath.

    .PARAMETER Option
    More options of the fake, by their createMockServer names or environment variable names
    (docs/options.md), e.g. @{ tokenTtlSeconds = 600; validateResponses = $true }.

    .PARAMETER AdminToken
    Protect /__admin with this bearer token; the returned object carries it for the other commands.

    .PARAMETER Engine
    The container engine's command (docker or podman). Default: the first of them on PATH.

    .PARAMETER TimeoutSeconds
    How long to wait for the fake to answer its health check. Default: 60.

    .EXAMPLE
    $fake = Start-PassportalFake -UseNode -Fixtures ./fixtures/suite
    Invoke-RestMethod "$($fake.BaseUrl)/api/v2/auth/client_token" -Method Post -Body ...
    Stop-PassportalFake $fake

    .EXAMPLE
    $fake = Start-PassportalFake -Image passportal-docs-fake:local -Https
    #>
    [CmdletBinding(SupportsShouldProcess)]
    [OutputType([pscustomobject])]
    param(
        [string] $Fixtures,
        [ValidateRange(0, 65535)] [int] $Port,
        [string] $Image,
        [switch] $UseNode,
        [switch] $Https,
        [hashtable] $Option = @{},
        [string] $AdminToken,
        [ValidateSet('docker', 'podman')] [string] $Engine,
        [ValidateRange(1, 3600)] [int] $TimeoutSeconds = 60
    )
    if ($UseNode -and $Image) { throw 'Give -Image or -UseNode, not both.' }
    if (-not $PSCmdlet.ShouldProcess('Passportal fake', 'Start')) { return }
    if (-not $Port) { $Port = Get-FreeTcpPort }
    $httpsPort = $null
    $variables = [ordered]@{ PROXY_AUTH = 'challenge' }
    foreach ($key in $Option.Keys) { $variables[(ConvertTo-OptionVariable $key)] = ConvertTo-OptionValue $Option[$key] }
    if ($AdminToken) { $variables['ADMIN_TOKEN'] = $AdminToken }
    $fixturesPath = $null
    if ($Fixtures) {
        if (-not (Test-Path -LiteralPath $Fixtures)) { throw "Fixtures not found: $Fixtures (a JSON file or a folder of per-kind files)." }
        $fixturesPath = (Resolve-Path -LiteralPath $Fixtures).Path
    }
    $logDir = Join-Path ([System.IO.Path]::GetTempPath()) ("passportal-fake-" + [guid]::NewGuid().ToString('N').Substring(0, 12))
    New-Item -ItemType Directory -Path $logDir | Out-Null
    $baseUrl = "http://127.0.0.1:$Port"
    $fake = [pscustomobject]@{
        PSTypeName = 'PassportalFake.Fake'
        BaseUrl = $baseUrl
        AdminUrl = "$baseUrl/__admin"
        RootUrl = $baseUrl
        ProxyUrl = "http://root:x@127.0.0.1:$Port"
        HttpsUrl = $null
        KeyId = $null
        Secret = $null
        CaCertPath = $null
        AdminToken = $AdminToken
        Mode = $null
        Process = $null
        ContainerId = $null
        Engine = $null
        LogDirectory = $logDir
    }
    if ($Image) {
        $engineCommand = Find-ContainerEngine $Engine
        $arguments = @('run', '-d', '--stop-timeout', '10', '-p', "127.0.0.1:${Port}:4010")
        if ($Https) {
            $httpsPort = Get-FreeTcpPort
            $arguments += @('-p', "127.0.0.1:${httpsPort}:4443")
            $variables['HTTPS_PORT'] = '4443'
        }
        if ($fixturesPath) { $arguments += @('-v', "${fixturesPath}:/fixtures:ro") }
        foreach ($key in $variables.Keys) { $arguments += @('-e', "$key=$($variables[$key])") }
        $arguments += $Image
        $output = & $engineCommand @arguments 2>&1
        if ($LASTEXITCODE -ne 0) { throw "$engineCommand run $Image failed: $($output -join [Environment]::NewLine)" }
        $fake.ContainerId = (@($output) | Select-Object -Last 1).ToString().Trim()
        $fake.Engine = $engineCommand
        $fake.Mode = 'image'
        $isDead = {
            $running = & $engineCommand inspect -f '{{.State.Running}}' $fake.ContainerId 2>$null
            if ("$running".Trim() -ne 'true') {
                $logs = & $engineCommand logs $fake.ContainerId 2>&1
                "the container exited: $($logs -join [Environment]::NewLine)"
            }
        }.GetNewClosure()
    } else {
        $command = Find-FakeCommand
        $variables['PORT'] = [string]$Port
        $variables['HOST'] = '127.0.0.1'
        if ($Https) {
            $httpsPort = Get-FreeTcpPort
            $variables['HTTPS_PORT'] = [string]$httpsPort
        }
        if ($fixturesPath) { $variables['FIXTURES'] = $fixturesPath }
        $saved = @{}
        foreach ($key in $variables.Keys) {
            $saved[$key] = [Environment]::GetEnvironmentVariable($key)
            [Environment]::SetEnvironmentVariable($key, $variables[$key])
        }
        try {
            $startArgs = @{
                FilePath = $command.FilePath
                PassThru = $true
                RedirectStandardOutput = (Join-Path $logDir 'stdout.log')
                RedirectStandardError = (Join-Path $logDir 'stderr.log')
            }
            if ($command.Arguments.Count -gt 0) { $startArgs['ArgumentList'] = $command.Arguments }
            if ($PSVersionTable.PSEdition -eq 'Desktop' -or $IsWindows) { $startArgs['WindowStyle'] = 'Hidden' }
            $fake.Process = Start-Process @startArgs
        } finally {
            foreach ($key in $saved.Keys) { [Environment]::SetEnvironmentVariable($key, $saved[$key]) }
        }
        $fake.Mode = 'node'
        $process = $fake.Process
        $isDead = {
            if ($process.HasExited) {
                Start-Sleep -Milliseconds 100
                $err = Get-Content -Raw -LiteralPath (Join-Path $logDir 'stderr.log') -ErrorAction SilentlyContinue
                $out = Get-Content -Raw -LiteralPath (Join-Path $logDir 'stdout.log') -ErrorAction SilentlyContinue
                "it exited with status $($process.ExitCode): $("$err".Trim()) $("$out".Trim())".Trim()
            }
        }.GetNewClosure()
    }
    [void]$script:StartedFakes.Add($fake)
    $failure = Wait-FakeHealth -BaseUrl $baseUrl -TimeoutSeconds $TimeoutSeconds -IsDead $isDead
    if ($failure) {
        Stop-PassportalFake -Fake $fake -ErrorAction SilentlyContinue
        throw "The Passportal fake did not start: $failure"
    }
    if ($Https) {
        $fake.HttpsUrl = "https://127.0.0.1:$httpsPort"
        $fake.CaCertPath = Join-Path $logDir 'passportal-fake-ca.pem'
        $pem = Invoke-FakeAdmin -Target $fake -Method GET -Path '/tls/ca.pem' -Raw
        [System.IO.File]::WriteAllText($fake.CaCertPath, $pem)
    }
    $key = Get-FakeDefaultKey $fake
    if ($key) {
        $fake.KeyId = $key.keyId
        $fake.Secret = $key.secret
    }
    $script:CurrentFake = $fake
    $fake
}

function Stop-PassportalFake {
    <#
    .SYNOPSIS
    Stops a fake started by Start-PassportalFake (its process or its container).

    .PARAMETER Fake
    The object Start-PassportalFake returned. Default: the fake started last.

    .EXAMPLE
    $fake | Stop-PassportalFake
    #>
    [CmdletBinding(SupportsShouldProcess)]
    param(
        [Parameter(Position = 0, ValueFromPipeline)] [psobject] $Fake
    )
    process {
        if ($null -eq $Fake) { $Fake = $script:CurrentFake }
        if ($null -eq $Fake) { return }
        if (-not $PSCmdlet.ShouldProcess($Fake.BaseUrl, 'Stop')) { return }
        if ($Fake.Mode -eq 'image' -and $Fake.ContainerId) {
            & $Fake.Engine rm -f $Fake.ContainerId 2>&1 | Out-Null
        } elseif ($Fake.Process -and -not $Fake.Process.HasExited) {
            if ($PSVersionTable.PSEdition -eq 'Desktop' -or $IsWindows) {
                # The npm command is a .cmd there: its node child goes with the whole tree.
                & taskkill.exe /PID $Fake.Process.Id /T /F 2>&1 | Out-Null
            }
            Stop-Process -Id $Fake.Process.Id -Force -ErrorAction SilentlyContinue
            $Fake.Process.WaitForExit(10000) | Out-Null
        }
        if ($Fake.LogDirectory -and (Test-Path -LiteralPath $Fake.LogDirectory)) {
            Remove-Item -LiteralPath $Fake.LogDirectory -Recurse -Force -ErrorAction SilentlyContinue
        }
        if ($script:CurrentFake -eq $Fake) { $script:CurrentFake = $null }
        [void]$script:StartedFakes.Remove($Fake)
    }
}
