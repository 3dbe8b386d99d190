function Start-PassportalFake {
    <#
    .SYNOPSIS
    Starts the Passportal Documents API fake (the npm command or the container image) on a free port.

    .DESCRIPTION
    Starts the fake, waits until GET /__admin/health answers, and returns an object describing
    it: BaseUrl (the API), AdminUrl, KeyId and Secret (the first API key of its fixtures),
    ProxyUrl (the fake as a forward proxy for the vendor's hosts), CaCertPath and CaBundlePath
    (with -Https), Source (which fake it started: this repository's build, the npm package or
    the image; -Verbose says so as it starts) and what Stop-PassportalFake needs. Every other
    command of this module uses the fake started last when given no -Fake, -Session or -Url. Its default, table and list
    output never show the admin token or the key's secret ($fake.Secret reads it).

    The npm command is started on port 0: it takes a free port itself, and its URL is read from
    what it announces, so no other process can take the port in between. It watches a pipe
    from this PowerShell process (--exit-with-stdin) and ends within seconds of it, however this
    process ends (a script that throws, an exit, a killed job), when Stop-PassportalFake is
    never reached. A fake that exits before it answers fails the command with its own output.

    The fake's proxy is started with PROXY_AUTH=challenge: a request through the proxy without
    proxy credentials gets 407 with Proxy-Authenticate: Basic, which is what makes .NET (and so
    Invoke-RestMethod) send the credentials of HTTPS_PROXY or -ProxyCredential. Reach the root
    through the proxy with the user 'root' (ProxyUrl does), a session with its id (a session's
    ProxyUrl).

    A start that fails throws with the fake's own error output.

    .PARAMETER Fixtures
    A fixture set: a JSON file or a folder of per-kind files. Default: the bundled set.

    .PARAMETER Port
    The HTTP port. Default: a free port the fake (or the container engine) picks.

    .PARAMETER Image
    Start this container image (docker or podman) instead of the npm command.

    .PARAMETER UseNode
    Start the npm command (node dist/start.js, or passportal-docs-fake on PATH). The default when -Image is not given.

    .PARAMETER Https
    Also serve HTTPS with certificates from the fake's CA, and proxy the vendor's hosts; the CA's
    certificate is saved to CaCertPath, and with the CAs this machine trusts to CaBundlePath.

    .PARAMETER CaBundlePath
    Where to write the CA bundle (with -Https): this machine's trusted CAs followed by the fake's,
    for SSL_CERT_FILE, so a client keeps reaching its other HTTPS services. Default: a file in
    the fake's own folder, removed by Stop-PassportalFake. Get-PassportalFakeEnvironment gives
    the whole environment for a client's process.

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
    [OutputType('PassportalFake.Fake')]
    param(
        [string] $Fixtures,
        [ValidateRange(0, 65535)] [int] $Port,
        [string] $Image,
        [switch] $UseNode,
        [switch] $Https,
        [string] $CaBundlePath,
        [hashtable] $Option = @{},
        [string] $AdminToken,
        [ValidateSet('docker', 'podman')] [string] $Engine,
        [ValidateRange(1, 3600)] [int] $TimeoutSeconds = 60
    )
    if ($UseNode -and $Image) { throw 'Give -Image or -UseNode, not both.' }
    if ($CaBundlePath -and -not $Https) { throw '-CaBundlePath needs -Https: the bundle holds the CA of the fake''s HTTPS.' }
    if (-not $PSCmdlet.ShouldProcess('Passportal fake', 'Start')) { return }
    $variables = Get-FakeStartVariable -Option $Option -AdminToken $AdminToken
    $fixturesPath = $null
    if ($Fixtures) {
        if (-not (Test-Path -LiteralPath $Fixtures)) { throw "Fixtures not found: $Fixtures (a JSON file or a folder of per-kind files)." }
        $fixturesPath = (Resolve-Path -LiteralPath $Fixtures).Path
    }
    $fake = New-FakeServer -AdminToken $AdminToken
    $how = @{ Fake = $fake; Port = $Port; Https = $Https; FixturesPath = $fixturesPath; Variables = $variables; TimeoutSeconds = $TimeoutSeconds }
    try {
        if ($Image) {
            Start-FakeImage @how -Image $Image -Engine $Engine
        } else {
            Start-FakeNode @how
        }
    } catch {
        Stop-PassportalFake -Fake $fake -Confirm:$false -ErrorAction SilentlyContinue
        throw "The Passportal fake did not start: $($_.Exception.Message)"
    }
    Complete-FakeStart -Fake $fake -Https:$Https -CaBundlePath $CaBundlePath
    $script:CurrentFake = $fake
    Set-VerdictBaseline $fake
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
            if ($Fake.Watchdog -and -not $Fake.Watchdog.HasExited) { $Fake.Watchdog.Kill() }
        } elseif ($Fake.Mode -eq 'node') {
            Stop-FakeNodeProcess $Fake
        }
        if ($Fake.LogDirectory -and (Test-Path -LiteralPath $Fake.LogDirectory)) {
            Remove-Item -LiteralPath $Fake.LogDirectory -Recurse -Force -ErrorAction SilentlyContinue
        }
        if ($script:CurrentFake -eq $Fake) { $script:CurrentFake = $null }
        [void]$script:StartedFakes.Remove($Fake)
    }
}
