# What Start-PassportalFake needs besides the admin API: free ports, the package's command, the
# container engine, and the wait for /__admin/health.

function Get-FreeTcpPort {
    $listener = New-Object System.Net.Sockets.TcpListener([System.Net.IPAddress]::Loopback, 0)
    $listener.Start()
    try { ($listener.LocalEndpoint).Port } finally { $listener.Stop() }
}

function ConvertTo-OptionVariable {
    # createMockServer's option name (tokenTtlSeconds) as the fake's environment variable (TOKEN_TTL_SECONDS).
    param([string] $Name)
    if ($Name -cmatch '^[A-Z0-9_]+$') { return $Name }
    ($Name -creplace '([a-z0-9])([A-Z])', '$1_$2').ToUpperInvariant()
}

function ConvertTo-OptionValue {
    param($Value)
    if ($Value -is [bool] -or $Value -is [System.Management.Automation.SwitchParameter]) {
        return ([string][bool]$Value).ToLowerInvariant()
    }
    [string]$Value
}

function Find-FakeCommand {
    # The npm command: the package's bin (dist/start.js) of this repository when the module runs
    # from it, else `passportal-docs-fake` on PATH (npm install -g, or node_modules/.bin).
    $repoStart = Join-Path $PSScriptRoot '../../../../dist/start.js'
    if (Test-Path -LiteralPath $repoStart) {
        return @{ FilePath = (Get-Command node -CommandType Application -ErrorAction Stop | Select-Object -First 1).Source; Arguments = @((Resolve-Path -LiteralPath $repoStart).Path) }
    }
    $name = 'passportal-docs-fake'
    if ($PSVersionTable.PSEdition -eq 'Desktop' -or $IsWindows) { $name = 'passportal-docs-fake.cmd' }
    $local = Join-Path (Join-Path (Get-Location) 'node_modules/.bin') $name
    if (Test-Path -LiteralPath $local -PathType Leaf) { return @{ FilePath = $local; Arguments = @() } }
    $onPath = Get-Command passportal-docs-fake -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
    if ($onPath) { return @{ FilePath = $onPath.Source; Arguments = @() } }
    throw "The fake's npm command was not found: install it with 'npm install --save-dev passportal-docs-fake' (run Start-PassportalFake from that folder) or 'npm install -g passportal-docs-fake', or pass -Image to use the container image."
}

function Find-ContainerEngine {
    param([string] $Engine)
    $names = @('docker', 'podman')
    if ($Engine) { $names = @($Engine) }
    foreach ($name in $names) {
        $command = Get-Command $name -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
        if ($command) { return $command.Source }
    }
    throw "No container engine found (docker or podman on PATH): install one, or use -UseNode to start the npm command."
}

function Wait-FakeHealth {
    # Polls /__admin/health until it answers 200; $IsDead is asked between polls and returns the
    # reason the fake will never answer (it exited), or $null.
    param([string] $BaseUrl, [int] $TimeoutSeconds, [scriptblock] $IsDead)
    $client = Get-AdminHttpClient
    $deadline = [DateTime]::UtcNow.AddSeconds($TimeoutSeconds)
    while ([DateTime]::UtcNow -lt $deadline) {
        try {
            $response = $client.GetAsync("$BaseUrl/__admin/health").GetAwaiter().GetResult()
            $ok = $response.IsSuccessStatusCode
            $response.Dispose()
            if ($ok) { return $null }
        } catch {
            Write-Verbose "health: $($_.Exception.Message)"
        }
        $dead = & $IsDead
        if ($dead) { return $dead }
        Start-Sleep -Milliseconds 200
    }
    "it did not answer $BaseUrl/__admin/health within $TimeoutSeconds seconds"
}

function Get-FakeDefaultKey {
    # The first API key of the fake's fixtures, with its secret, from GET /__admin/state.
    param($Target)
    $state = Invoke-FakeAdmin -Target $Target -Method GET -Path '/state'
    foreach ($name in @('apiKeys')) {
        if ($state.PSObject.Properties.Name -contains $name -and @($state.$name).Count -gt 0) {
            return @($state.$name)[0]
        }
    }
    $null
}

$script:StartedFakes = New-Object System.Collections.ArrayList

function Stop-StartedFake {
    # Every fake this module started and did not stop yet.
    foreach ($fake in $script:StartedFakes.ToArray()) {
        Stop-PassportalFake -Fake $fake -Confirm:$false -ErrorAction SilentlyContinue
    }
}
