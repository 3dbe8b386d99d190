# A client that talks to the fake at the vendor's host and to another HTTPS service of its own
# (a stand-in on loopback, with a CA of its own that this machine trusts) reaches both with the
# environment Get-PassportalFakeEnvironment gives: the CA bundle (the machine's CAs and the
# fake's) and NO_PROXY. With the fake's CA alone and HTTPS_PROXY alone, as pages used to say, the
# other service is cut off. The block docs/powershell.md shows for PowerShell 7 on Linux runs as
# written. Everything runs in a PowerShell process whose trusted CAs are the stand-in's only
# (SSL_CERT_FILE and an empty SSL_CERT_DIR), as the machine's CAs.
BeforeAll {
    . (Join-Path $PSScriptRoot 'TestFake.ps1')
    $module = (Resolve-Path (Join-Path $PSScriptRoot '../PassportalFake/PassportalFake.psd1')).Path
    $client = (Resolve-Path (Join-Path $PSScriptRoot '../../../examples/powershell/passportal-client.ps1')).Path

    # The stand-in's CA and its certificate for 127.0.0.1, as PEM files.
    $notBefore = [DateTimeOffset]::UtcNow.AddMinutes(-5)
    $notAfter = [DateTimeOffset]::UtcNow.AddDays(1)
    $caKey = [System.Security.Cryptography.ECDsa]::Create([System.Security.Cryptography.ECCurve+NamedCurves]::nistP256)
    $caRequest = [System.Security.Cryptography.X509Certificates.CertificateRequest]::new('CN=Stand-in Service CA', $caKey, [System.Security.Cryptography.HashAlgorithmName]::SHA256)
    $caRequest.CertificateExtensions.Add([System.Security.Cryptography.X509Certificates.X509BasicConstraintsExtension]::new($true, $false, 0, $true))
    $caRequest.CertificateExtensions.Add([System.Security.Cryptography.X509Certificates.X509KeyUsageExtension]::new('KeyCertSign, CrlSign', $true))
    $caRequest.CertificateExtensions.Add([System.Security.Cryptography.X509Certificates.X509SubjectKeyIdentifierExtension]::new($caRequest.PublicKey, $false))
    $ca = $caRequest.CreateSelfSigned($notBefore, $notAfter)
    $leafKey = [System.Security.Cryptography.ECDsa]::Create([System.Security.Cryptography.ECCurve+NamedCurves]::nistP256)
    $leafRequest = [System.Security.Cryptography.X509Certificates.CertificateRequest]::new('CN=127.0.0.1', $leafKey, [System.Security.Cryptography.HashAlgorithmName]::SHA256)
    $names = [System.Security.Cryptography.X509Certificates.SubjectAlternativeNameBuilder]::new()
    $names.AddIpAddress([System.Net.IPAddress]::Loopback)
    $leafRequest.CertificateExtensions.Add($names.Build())
    $leafRequest.CertificateExtensions.Add([System.Security.Cryptography.X509Certificates.X509BasicConstraintsExtension]::new($false, $false, 0, $false))
    $serverAuth = [System.Security.Cryptography.OidCollection]::new()
    [void]$serverAuth.Add([System.Security.Cryptography.Oid]::new('1.3.6.1.5.5.7.3.1'))
    $leafRequest.CertificateExtensions.Add([System.Security.Cryptography.X509Certificates.X509EnhancedKeyUsageExtension]::new($serverAuth, $false))
    $leaf = $leafRequest.Create($ca, $notBefore, $notAfter, [byte[]](1, 2, 3, 4, 5, 6, 7, 8))
    $standInCa = Join-Path $TestDrive 'stand-in-ca.pem'
    Set-Content -LiteralPath $standInCa -Value $ca.ExportCertificatePem()
    Set-Content -LiteralPath (Join-Path $TestDrive 'stand-in.pem') -Value $leaf.ExportCertificatePem()
    Set-Content -LiteralPath (Join-Path $TestDrive 'stand-in.key') -Value $leafKey.ExportPkcs8PrivateKeyPem()

    # The stand-in: an HTTPS service on loopback answering {"service":"stand-in"}; it ends with its standard input.
    $server = "const https = require('https'), fs = require('fs');" +
    "const s = https.createServer({ key: fs.readFileSync(process.argv[1]), cert: fs.readFileSync(process.argv[2]) }, (q, r) => { r.setHeader('content-type', 'application/json'); r.end(JSON.stringify({ service: 'stand-in', path: q.url })); });" +
    "s.listen(0, '127.0.0.1', () => console.log(s.address().port));" +
    "process.stdin.on('end', () => process.exit(0)); process.stdin.resume();"
    $info = New-Object System.Diagnostics.ProcessStartInfo
    $info.FileName = (Get-Command node -CommandType Application | Select-Object -First 1).Source
    foreach ($argument in @('-e', $server, (Join-Path $TestDrive 'stand-in.key'), (Join-Path $TestDrive 'stand-in.pem'))) { $info.ArgumentList.Add($argument) }
    $info.UseShellExecute = $false
    $info.RedirectStandardInput = $true
    $info.RedirectStandardOutput = $true
    $standIn = [System.Diagnostics.Process]::Start($info)
    $standInUrl = 'https://127.0.0.1:' + $standIn.StandardOutput.ReadLine().Trim()

    $doc = Get-Content -Raw (Join-Path $PSScriptRoot '../../../docs/powershell.md')
    $block = [regex]::Match($doc, '(?s)\*\*PowerShell 7 on Linux\*\*.*?```powershell\r?\n(.*?)```').Groups[1].Value

    $folder = Join-Path $TestDrive 'client'
    New-Item -ItemType Directory -Path $folder | Out-Null
    Copy-Item $client $folder
    $emptyDir = Join-Path $TestDrive 'no-certs'
    New-Item -ItemType Directory -Path $emptyDir | Out-Null

    $saved = @{ SSL_CERT_FILE = $env:SSL_CERT_FILE; SSL_CERT_DIR = $env:SSL_CERT_DIR }
    $env:SSL_CERT_FILE = $standInCa
    $env:SSL_CERT_DIR = $emptyDir
    try {
        $outcome = Start-Job -ArgumentList $module, $folder, $block, $standInUrl, (Get-TestFakeStart) -ScriptBlock {
            param($Module, $Folder, $Block, $StandInUrl, $Start)
            $ErrorActionPreference = 'Stop'
            Import-Module $Module
            Set-Location $Folder
            # One client process: the stand-in, then the vendor's token call through the proxy.
            $twoServices = {
                param($Module, $StandInUrl, $KeyId, $Secret)
                Import-Module $Module
                $answer = [ordered]@{ StandIn = $null; Vendor = $null }
                try { $answer.StandIn = (Invoke-RestMethod "$StandInUrl/hello").service } catch { $answer.StandIn = "failed: $($_.Exception.Message)" }
                try {
                    $content = [guid]::NewGuid().ToString('N')
                    $headers = @{ 'x-key' = $KeyId; 'x-hash' = (New-PassportalHash -Secret $Secret -Content $content) }
                    $body = @{ scope = 'docs_api'; content = $content } | ConvertTo-Json
                    $answer.Vendor = (Invoke-RestMethod -Uri 'https://us-clover.passportalmsp.com/api/v2/auth/client_token' -Method Post -Headers $headers -Body $body -ContentType 'application/json').access_token.Length
                } catch { $answer.Vendor = "failed: $($_.Exception.Message)" }
                [pscustomobject]$answer
            }
            $fake = Start-PassportalFake @Start -Https
            try {
                $session = New-PassportalFakeSession -Fake $fake
                $environment = $session | Get-PassportalFakeEnvironment -NoProxy hudu.example.com
                # The block of the page, as written: it sets the environment and runs the client.
                $documented = @(Invoke-Expression $Block)
                $withEnvironment = Start-Job -ScriptBlock $twoServices -ArgumentList $Module, $StandInUrl, $session.KeyId, $session.Secret | Receive-Job -Wait -AutoRemoveJob
                # What the pages used to say: the fake's CA alone, HTTPS_PROXY alone.
                $env:SSL_CERT_FILE = $fake.CaCertPath
                $env:HTTPS_PROXY = $session.ProxyUrl
                Remove-Item env:NO_PROXY
                $fakeCaOnly = Start-Job -ScriptBlock $twoServices -ArgumentList $Module, $StandInUrl, $session.KeyId, $session.Secret | Receive-Job -Wait -AutoRemoveJob
                [pscustomobject]@{
                    Environment = $environment
                    Bundle = Get-Content -Raw $environment.SSL_CERT_FILE
                    FakeCa = Get-Content -Raw $fake.CaCertPath
                    Documented = $documented
                    WithEnvironment = $withEnvironment
                    FakeCaOnly = $fakeCaOnly
                    TokenCalls = @($session | Get-PassportalFakeRequest -Path /api/v2/auth/client_token).Count
                    Hosts = @($session | Get-PassportalFakeRequest | ForEach-Object host | Sort-Object -Unique)
                }
            } finally {
                Stop-PassportalFake $fake
            }
        } | Receive-Job -Wait -AutoRemoveJob
    } finally {
        foreach ($name in $saved.Keys) { [Environment]::SetEnvironmentVariable($name, $saved[$name]) }
    }
}
AfterAll {
    if ($standIn -and -not $standIn.HasExited) {
        $standIn.StandardInput.Close()
        if (-not $standIn.WaitForExit(5000)) { $standIn.Kill() }
    }
}

Describe 'a client with other HTTPS services, through the fake''s proxy' {
    It 'gets the CA bundle: the CAs this machine trusts, then the fake''s' {
        $outcome.Bundle | Should -Match ([regex]::Escape(($ca.ExportCertificatePem() -replace '\r', '').Trim()))
        $outcome.Bundle | Should -Match ([regex]::Escape(($outcome.FakeCa -replace '\r', '').Trim()))
    }

    It 'gets the environment for its process: the bundle, the session''s proxy, NO_PROXY with loopback and its hosts' {
        @($outcome.Environment.Keys) | Should -Be @('SSL_CERT_FILE', 'HTTPS_PROXY', 'NO_PROXY')
        $outcome.Environment.HTTPS_PROXY | Should -Match '^http://[^:]+:x@127\.0\.0\.1:\d+$'
        $outcome.Environment.NO_PROXY | Should -Be 'localhost,127.0.0.1,::1,hudu.example.com'
    }

    It 'reaches its other service and the vendor''s host through its session with that environment' {
        $outcome.WithEnvironment.StandIn | Should -Be 'stand-in'
        $outcome.WithEnvironment.Vendor | Should -BeGreaterThan 20
    }

    It 'runs the block docs/powershell.md shows as written: the client reads its clients at the vendor''s host' {
        $block | Should -Match 'Get-PassportalFakeEnvironment'
        @($outcome.Documented).Count | Should -BeGreaterThan 0
        @($outcome.Documented | ForEach-Object name) | Should -Not -BeNullOrEmpty
        $outcome.Hosts | Should -Contain 'us-clover.passportalmsp.com'
        $outcome.TokenCalls | Should -Be 3
    }

    It 'is cut off from its other service with the fake''s CA alone and HTTPS_PROXY alone' {
        $outcome.FakeCaOnly.StandIn | Should -BeLike 'failed:*'
        $outcome.FakeCaOnly.Vendor | Should -BeGreaterThan 20
    }
}
