# What Start-PassportalFake needs besides the admin API: the package's command started with a
# pipe it watches, the URL it announces, the container engine, and the wait for /__admin/health.

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

function Get-FakeStartVariable {
    # The fake's environment for -Option and -AdminToken, its proxy asking for credentials
    # (PROXY_AUTH=challenge: what makes .NET send those of HTTPS_PROXY).
    param([System.Collections.IDictionary] $Option, [string] $AdminToken)
    $variables = [ordered]@{ PROXY_AUTH = 'challenge' }
    foreach ($key in $Option.Keys) { $variables[(ConvertTo-OptionVariable $key)] = ConvertTo-OptionValue $Option[$key] }
    if ($AdminToken) { $variables['ADMIN_TOKEN'] = $AdminToken }
    $variables
}

function New-FakeServer {
    # The fake Start-PassportalFake hands out, with its own log folder, known to Stop-StartedFake
    # from now on so that a start failing half-way leaves nothing running.
    param([string] $AdminToken)
    $logDir = Join-Path ([System.IO.Path]::GetTempPath()) ("passportal-fake-" + [guid]::NewGuid().ToString('N').Substring(0, 12))
    New-Item -ItemType Directory -Path $logDir | Out-Null
    $fake = Add-FakeTypeName ([PassportalFakeServer]::new()) 'PassportalFake.Fake'
    $fake.AdminToken = $AdminToken
    $fake.LogDirectory = $logDir
    [void]$script:StartedFakes.Add($fake)
    $fake
}

function Start-FakeImage {
    # Runs the container image (docker or podman) on loopback ports the engine picks (or -Port),
    # removed by a watchdog if this PowerShell ends first, and waits for its health check.
    param($Fake, [string] $Image, [string] $Engine, [int] $Port, [switch] $Https, [string] $FixturesPath, [System.Collections.IDictionary] $Variables, [int] $TimeoutSeconds)
    $engineCommand = Find-ContainerEngine $Engine
    $Fake.Engine = $engineCommand
    $Fake.Mode = 'image'
    $Fake.Source = "the image $Image ($engineCommand)"
    Write-Verbose "Start-PassportalFake: starting $($Fake.Source)"
    # The engine picks the host ports (-p 127.0.0.1::<port>) and says which (docker port).
    $hostPort = ''
    if ($Port) { $hostPort = [string]$Port }
    $arguments = @('run', '-d', '--stop-timeout', '10', '-p', "127.0.0.1:${hostPort}:4010")
    if ($Https) {
        $arguments += @('-p', '127.0.0.1::4443')
        $Variables['HTTPS_PORT'] = '4443'
    }
    if ($FixturesPath) { $arguments += @('-v', "${FixturesPath}:/fixtures:ro") }
    foreach ($key in $Variables.Keys) { $arguments += @('-e', "$key=$($Variables[$key])") }
    $arguments += $Image
    $output = & $engineCommand @arguments 2>&1
    if ($LASTEXITCODE -ne 0) { throw "$engineCommand run $Image failed: $($output -join [Environment]::NewLine)" }
    $Fake.ContainerId = (@($output) | Select-Object -Last 1).ToString().Trim()
    $Fake.Watchdog = Start-ContainerWatchdog -Engine $engineCommand -ContainerId $Fake.ContainerId
    $containerId = $Fake.ContainerId
    $isDead = {
        $running = & $engineCommand inspect -f '{{.State.Running}}' $containerId 2>$null
        if ("$running".Trim() -ne 'true') {
            $logs = & $engineCommand logs $containerId 2>&1
            "the container exited: $($logs -join [Environment]::NewLine)"
        }
    }.GetNewClosure()
    $Fake.BaseUrl = Get-ContainerUrl -Engine $engineCommand -ContainerId $containerId -ContainerPort 4010 -Scheme http
    if ($Https) { $Fake.HttpsUrl = Get-ContainerUrl -Engine $engineCommand -ContainerId $containerId -ContainerPort 4443 -Scheme https }
    $failure = Wait-FakeHealth -BaseUrl $Fake.BaseUrl -TimeoutSeconds $TimeoutSeconds -IsDead $isDead
    if ($failure) { throw $failure }
}

function Start-FakeNode {
    # Starts the npm command on port 0 (it takes a free port itself and announces its URL, read
    # back from its log) and waits for its health check.
    param($Fake, [int] $Port, [switch] $Https, [string] $FixturesPath, [System.Collections.IDictionary] $Variables, [int] $TimeoutSeconds)
    $command = Find-FakeCommand
    $Fake.Mode = 'node'
    $Fake.Source = $command.Source
    Write-Verbose "Start-PassportalFake: starting $($Fake.Source)"
    $Variables['PORT'] = [string]$Port
    $Variables['HOST'] = '127.0.0.1'
    if ($Https) { $Variables['HTTPS_PORT'] = '0' }
    if ($FixturesPath) { $Variables['FIXTURES'] = $FixturesPath }
    $Variables['LOG_FORMAT'] = 'json'
    if (@('info', 'debug', 'trace') -notcontains $Variables['LOG_LEVEL']) { $Variables['LOG_LEVEL'] = 'info' }
    $started = Start-FakeNodeProcess -Command $command -Variables $Variables -LogDirectory $Fake.LogDirectory
    $Fake.Process = $started.Process
    $Fake.Outputs = $started.Outputs
    $announced = Wait-FakeAnnouncement -Process $Fake.Process -LogDirectory $Fake.LogDirectory -Https:$Https -TimeoutSeconds $TimeoutSeconds
    $Fake.BaseUrl = $announced.url
    if ($Https) { $Fake.HttpsUrl = $announced.httpsUrl }
    $process = $Fake.Process
    $isDead = { if ($process.HasExited) { "it exited with status $($process.ExitCode)" } }.GetNewClosure()
    $failure = Wait-FakeHealth -BaseUrl $Fake.BaseUrl -TimeoutSeconds $TimeoutSeconds -IsDead $isDead
    if ($failure) { throw $failure }
}

function Complete-FakeStart {
    # What a fake that answers still needs: its admin, root and proxy URLs, with -Https its CA's
    # certificate and the CA bundle, and the first API key of its fixtures.
    param($Fake, [switch] $Https, [string] $CaBundlePath)
    $Fake.AdminUrl = "$($Fake.BaseUrl)/__admin"
    $Fake.RootUrl = $Fake.BaseUrl
    $Fake.ProxyUrl = "http://root:x@$(([uri]$Fake.BaseUrl).Authority)"
    if ($Https) {
        $pem = Invoke-FakeAdmin -Target (Resolve-FakeTarget $Fake) -Method GET -Path '/tls/ca.pem' -Raw
        $Fake.CaCertPath = Join-Path $Fake.LogDirectory 'passportal-fake-ca.pem'
        [System.IO.File]::WriteAllText($Fake.CaCertPath, $pem)
        if (-not $CaBundlePath) { $CaBundlePath = Join-Path $Fake.LogDirectory 'ca-bundle.pem' }
        $Fake.CaBundlePath = Write-CaBundle -Path $CaBundlePath -FakeCaPem $pem
    }
    $key = Get-FakeDefaultKey $Fake
    if ($key) {
        $Fake.KeyId = $key.keyId
        $Fake.Secret = $key.secret
    }
}

function Find-FakeCommand {
    # The npm command: the package's bin (dist/start.js) of this repository when the module runs
    # from it, else `passportal-docs-fake` on PATH (npm install -g, or node_modules/.bin); its
    # Source says which, for the message and the fake's Source.
    $repoStart = Join-Path $PSScriptRoot '../../../../dist/start.js'
    if (Test-Path -LiteralPath $repoStart) {
        $script = (Resolve-Path -LiteralPath $repoStart).Path
        return @{ FilePath = (Get-Command node -CommandType Application -ErrorAction Stop | Select-Object -First 1).Source; Arguments = @($script); Source = "this repository's build ($script)" }
    }
    $name = 'passportal-docs-fake'
    if ($PSVersionTable.PSEdition -eq 'Desktop' -or $IsWindows) { $name = 'passportal-docs-fake.cmd' }
    $local = Join-Path (Join-Path (Get-Location) 'node_modules/.bin') $name
    if (Test-Path -LiteralPath $local -PathType Leaf) { return @{ FilePath = $local; Arguments = @(); Source = "the npm package in this folder ($local)" } }
    $onPath = Get-Command passportal-docs-fake -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
    if ($onPath) { return @{ FilePath = $onPath.Source; Arguments = @(); Source = "the npm command on PATH ($($onPath.Source))" } }
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
    $deadline = [DateTime]::UtcNow.AddSeconds($TimeoutSeconds)
    while ([DateTime]::UtcNow -lt $deadline) {
        $answer = Send-FakeHttp -Method GET -Url "$BaseUrl/__admin/health"
        if ($answer.Status -ge 200 -and $answer.Status -lt 300) { return $null }
        if ($answer.Failure) { Write-Verbose "health: $($answer.Failure)" }
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

function Join-CommandLine {
    # Arguments as one command line that Windows' (and .NET's) parsing splits back into the same
    # list: each quoted when it holds a space or a quote, backslashes before a quote doubled.
    param([string[]] $Arguments)
    $parts = foreach ($argument in $Arguments) {
        if ($argument -and $argument -notmatch '[\s"]') { $argument; continue }
        '"' + ($argument -replace '(\\*)"', '$1$1\"' -replace '(\\+)$', '$1$1') + '"'
    }
    $parts -join ' '
}

function Start-FakeNodeProcess {
    # Starts the npm command with -Variables in its environment and a pipe on its standard input
    # (--exit-with-stdin: it ends when this process lets go of the pipe, however this process
    # ends). Its output is copied to stdout.log and stderr.log in -LogDirectory as it comes, so it
    # never waits on a full pipe. Answers the process and the copies (for Stop-FakeNodeProcess).
    param([hashtable] $Command, [System.Collections.IDictionary] $Variables, [string] $LogDirectory)
    $info = New-Object System.Diagnostics.ProcessStartInfo
    $info.FileName = $Command.FilePath
    $arguments = @($Command.Arguments) + @('--exit-with-stdin')
    if ($info.PSObject.Properties.Name -contains 'ArgumentList') {
        foreach ($argument in $arguments) { $info.ArgumentList.Add($argument) }
    } else {
        $info.Arguments = Join-CommandLine $arguments
    }
    foreach ($key in $Variables.Keys) { $info.EnvironmentVariables[$key] = [string]$Variables[$key] }
    $info.UseShellExecute = $false
    $info.CreateNoWindow = $true
    $info.RedirectStandardInput = $true
    $info.RedirectStandardOutput = $true
    $info.RedirectStandardError = $true
    $process = [System.Diagnostics.Process]::Start($info)
    $outputs = foreach ($name in @('stdout', 'stderr')) {
        $file = New-Object System.IO.FileStream((Join-Path $LogDirectory "$name.log"), [System.IO.FileMode]::Create, [System.IO.FileAccess]::Write, ([System.IO.FileShare]::ReadWrite -bor [System.IO.FileShare]::Delete), 1)
        $source = if ($name -eq 'stdout') { $process.StandardOutput.BaseStream } else { $process.StandardError.BaseStream }
        [pscustomobject]@{ File = $file; Copy = $source.CopyToAsync($file) }
    }
    [pscustomobject]@{ Process = $process; Outputs = @($outputs) }
}

function Read-FakeLog {
    # What the fake wrote so far to one of its logs (stdout or stderr), read beside the copy writing it.
    param([string] $LogDirectory, [string] $Name)
    $path = Join-Path $LogDirectory "$Name.log"
    if (-not (Test-Path -LiteralPath $path)) { return '' }
    $stream = New-Object System.IO.FileStream($path, [System.IO.FileMode]::Open, [System.IO.FileAccess]::Read, ([System.IO.FileShare]::ReadWrite -bor [System.IO.FileShare]::Delete))
    try {
        $reader = New-Object System.IO.StreamReader($stream)
        $reader.ReadToEnd()
    } finally {
        $stream.Dispose()
    }
}

function Wait-FakeAnnouncement {
    # Waits for the URLs the fake announces on start (its JSON log lines): `url`, and `httpsUrl`
    # with -Https. Answers them, or throws when the process ends first (with its output) or
    # nothing is announced within -TimeoutSeconds.
    param([System.Diagnostics.Process] $Process, [string] $LogDirectory, [switch] $Https, [int] $TimeoutSeconds)
    $deadline = [DateTime]::UtcNow.AddSeconds($TimeoutSeconds)
    $found = @{ url = $null; httpsUrl = $null }
    while ($true) {
        foreach ($line in ((Read-FakeLog $LogDirectory 'stdout') -split "`n")) {
            if (-not $line.StartsWith('{')) { continue }
            try { $entry = ConvertFrom-Json -InputObject $line } catch { continue }
            foreach ($name in @('url', 'httpsUrl')) {
                if (-not $found[$name] -and $entry.PSObject.Properties.Name -contains $name -and $entry.PSObject.Properties.Name -contains 'msg') {
                    if ($name -eq 'url' -and -not ([string]$entry.msg).StartsWith('Passportal Documents API fake listening on')) { continue }
                    $found[$name] = ([string]$entry.$name).TrimEnd('/')
                }
            }
        }
        if ($found.url -and ($found.httpsUrl -or -not $Https)) { return $found }
        if ($Process.HasExited) {
            $Process.WaitForExit()
            $err = (Read-FakeLog $LogDirectory 'stderr').Trim()
            $out = (Read-FakeLog $LogDirectory 'stdout').Trim()
            if ($out.Length -gt 4000) { $out = '...' + $out.Substring($out.Length - 4000) }
            throw "it exited with status $($Process.ExitCode): $err $out".Trim()
        }
        if ([DateTime]::UtcNow -ge $deadline) {
            $out = ((Read-FakeLog $LogDirectory 'stderr') + ' ' + (Read-FakeLog $LogDirectory 'stdout')).Trim()
            if ($out.Length -gt 4000) { $out = '...' + $out.Substring($out.Length - 4000) }
            throw "it announced no URL within $TimeoutSeconds seconds: $out".Trim()
        }
        Start-Sleep -Milliseconds 100
    }
}

function Stop-FakeNodeProcess {
    # Closes the fake's standard input (it ends by itself, closing its connections), kills it when
    # it has not ended after a few seconds, then closes the copies of its output.
    param($Fake)
    $process = $Fake.Process
    if ($process -and -not $process.HasExited) {
        try { $process.StandardInput.Close() } catch { Write-Verbose "stdin: $($_.Exception.Message)" }
        if (-not $process.WaitForExit(5000)) {
            if ($PSVersionTable.PSEdition -eq 'Desktop' -or $IsWindows) {
                # The npm command is a .cmd there: its node child goes with the whole tree.
                & taskkill.exe /PID $process.Id /T /F 2>&1 | Out-Null
            }
            Stop-Process -Id $process.Id -Force -ErrorAction SilentlyContinue
            $process.WaitForExit(10000) | Out-Null
        }
    }
    foreach ($output in @($Fake.Outputs)) {
        if ($null -eq $output) { continue }
        try { $output.Copy.Wait(5000) | Out-Null } catch { Write-Verbose "output: $($_.Exception.Message)" }
        $output.File.Dispose()
    }
    $Fake.Outputs = @()
}

function Get-ContainerUrl {
    # The loopback address the engine published a container's port on (run with -p 127.0.0.1::<port>).
    param([string] $Engine, [string] $ContainerId, [int] $ContainerPort, [string] $Scheme)
    $published = & $Engine port $ContainerId "$ContainerPort/tcp" 2>&1
    $address = @($published) | ForEach-Object { "$_".Trim() } | Where-Object { $_ -match '^127\.0\.0\.1:\d+$' } | Select-Object -First 1
    if (-not $address) { throw "$Engine port $ContainerId $ContainerPort/tcp answered no loopback address: $($published -join ' ')" }
    "${Scheme}://$address"
}

function ConvertTo-PemText {
    # A certificate as PEM text (base64 in lines of 64).
    param([System.Security.Cryptography.X509Certificates.X509Certificate2] $Certificate)
    $base64 = [Convert]::ToBase64String($Certificate.RawData)
    $lines = for ($i = 0; $i -lt $base64.Length; $i += 64) { $base64.Substring($i, [Math]::Min(64, $base64.Length - $i)) }
    "-----BEGIN CERTIFICATE-----`n" + ($lines -join "`n") + "`n-----END CERTIFICATE-----`n"
}

function Write-CaBundle {
    # The CAs this machine trusts (its root store: on Linux, SSL_CERT_FILE and SSL_CERT_DIR or
    # the system's bundle) followed by the fake's CA, as one PEM file at -Path.
    param([string] $Path, [string] $FakeCaPem)
    $text = New-Object System.Text.StringBuilder
    $store = New-Object System.Security.Cryptography.X509Certificates.X509Store([System.Security.Cryptography.X509Certificates.StoreName]::Root, [System.Security.Cryptography.X509Certificates.StoreLocation]::LocalMachine)
    try {
        $store.Open([System.Security.Cryptography.X509Certificates.OpenFlags]::ReadOnly)
        foreach ($certificate in $store.Certificates) { [void]$text.Append((ConvertTo-PemText $certificate)) }
    } catch {
        Write-Warning "The CA bundle holds the fake's CA only: this machine's root store could not be read ($($_.Exception.Message))."
    } finally {
        $store.Close()
    }
    [void]$text.Append($FakeCaPem.Trim() + "`n")
    $full = $ExecutionContext.SessionState.Path.GetUnresolvedProviderPathFromPSPath($Path)
    [System.IO.File]::WriteAllText($full, $text.ToString(), (New-Object System.Text.UTF8Encoding($false)))
    $full
}

function Start-ContainerWatchdog {
    # A container started with `run -d` outlives a killed PowerShell (the npm command ends with it
    # through its stdin pipe instead). A second PowerShell, started here, waits for this one to end,
    # however it ends, then removes the container; Stop-PassportalFake ends it first.
    [CmdletBinding()]
    [OutputType([System.Diagnostics.Process])]
    param([Parameter(Mandatory)] [string] $Engine, [Parameter(Mandatory)] [string] $ContainerId)
    $exe = Join-Path $PSHOME 'pwsh'
    if ($IsWindows) { $exe += '.exe' }
    if (-not (Test-Path -LiteralPath $exe)) { $exe = Join-Path $PSHOME 'powershell.exe' }
    $quotedEngine = $Engine.Replace("'", "''")
    $quotedId = $ContainerId.Replace("'", "''")
    $command = "try { Wait-Process -Id $PID -ErrorAction Stop } catch { }; & '$quotedEngine' rm -f '$quotedId' *> `$null"
    $info = New-Object System.Diagnostics.ProcessStartInfo
    $info.FileName = $exe
    $arguments = @('-NoProfile', '-NonInteractive', '-Command', $command)
    if ($info.PSObject.Properties.Name -contains 'ArgumentList') {
        foreach ($argument in $arguments) { $info.ArgumentList.Add($argument) }
    } else {
        $info.Arguments = Join-CommandLine $arguments
    }
    $info.UseShellExecute = $false
    $info.CreateNoWindow = $true
    $info.RedirectStandardInput = $true
    $info.RedirectStandardOutput = $true
    $info.RedirectStandardError = $true
    [System.Diagnostics.Process]::Start($info)
}
