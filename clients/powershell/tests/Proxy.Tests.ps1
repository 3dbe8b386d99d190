# A PowerShell 7 client pinned to the vendor's host reaches its own session through the fake's
# proxy: .NET sends the proxy credentials (HTTPS_PROXY's user info, or -Proxy with
# -ProxyCredential) once the fake challenges with 407, and trusts the fake's CA by SSL_CERT_FILE.
# .NET reads SSL_CERT_FILE and HTTPS_PROXY once per process, so the clients run in child
# processes (Start-Job) started after the variables are set: one by HTTPS_PROXY, one by -Proxy.
BeforeAll {
    . (Join-Path $PSScriptRoot 'TestFake.ps1')
    $start = Get-TestFakeStart
    $module = (Resolve-Path (Join-Path $PSScriptRoot '../PassportalFake/PassportalFake.psd1')).Path

    # The vendor's token call as the public clients write it, once per route, in a fresh process;
    # answers the length of each token.
    $clients = {
        param($Module, $Routes)
        $ErrorActionPreference = 'Stop'
        Import-Module $Module
        foreach ($route in $Routes) {
            $content = [guid]::NewGuid().ToString('N')
            $call = @{
                Uri     = 'https://us-clover.passportalmsp.com/api/v2/auth/client_token'
                Method  = 'Post'
                Body    = @{ scope = 'docs_api'; content = $content }
                Headers = @{ 'x-key' = $route.KeyId; 'x-hash' = (New-PassportalHash -Secret $route.Secret -Content $content) }
            }
            if ($route.ByParameters) {
                $proxy = [uri]$route.ProxyUrl
                $user = [uri]::UnescapeDataString($proxy.UserInfo.Split(':')[0])
                $call['Proxy'] = "http://$($proxy.Authority)"
                $call['ProxyCredential'] = New-Object System.Management.Automation.PSCredential ($user, (ConvertTo-SecureString 'x' -AsPlainText -Force))
            }
            (Invoke-RestMethod @call).access_token.Length
        }
    }
    function Invoke-ClientProcess([string[]] $CaFiles, [string] $HttpsProxy, [object[]] $Routes) {
        $bundle = Join-Path $TestDrive ([guid]::NewGuid().ToString('N') + '.pem')
        Set-Content -LiteralPath $bundle -Value ($CaFiles | ForEach-Object { Get-Content -Raw $_ })
        $env:SSL_CERT_FILE = $bundle
        $env:HTTPS_PROXY = $HttpsProxy
        try {
            Start-Job -ScriptBlock $clients -ArgumentList $module, $Routes | Receive-Job -Wait -AutoRemoveJob
        } finally {
            Remove-Item env:SSL_CERT_FILE, env:HTTPS_PROXY -ErrorAction SilentlyContinue
        }
    }
    $tokenCalls = { param($Target) @($Target | Get-PassportalFakeRequest -Path /api/v2/auth/client_token).Count }

    $fake = Start-PassportalFake @start -Https
    $plain = Start-PassportalFake @start -Https -Option @{ proxyAuth = 'optional' }
    $byEnvironment = New-PassportalFakeSession -Fake $fake
    $byParameters = New-PassportalFakeSession -Fake $fake
    $unchallenged = New-PassportalFakeSession -Fake $plain
    $route = { param($Target, [switch] $ByParameters) [pscustomobject]@{ ProxyUrl = $Target.ProxyUrl; KeyId = $Target.KeyId; Secret = $Target.Secret; ByParameters = [bool]$ByParameters } }
    $environmentTokens = @(Invoke-ClientProcess $fake.CaCertPath $byEnvironment.ProxyUrl @(& $route $byEnvironment))
    $parameterTokens = @(Invoke-ClientProcess @($fake.CaCertPath, $plain.CaCertPath) '' @(
            (& $route $byParameters -ByParameters), (& $route $fake -ByParameters), (& $route $unchallenged -ByParameters)))
}
AfterAll {
    if ($fake) { Stop-PassportalFake $fake }
    if ($plain) { Stop-PassportalFake $plain }
}

Describe 'the vendor host through the proxy, with the fake CA' {
    It 'has the CA certificate saved for SSL_CERT_FILE' {
        Get-Content -Raw $fake.CaCertPath | Should -Match '^-----BEGIN CERTIFICATE-----'
        $fake.HttpsUrl | Should -Match '^https://127\.0\.0\.1:\d+$'
    }

    It 'reaches the session named by HTTPS_PROXY=http://<sessionId>:x@host:port' {
        $environmentTokens[0] | Should -BeGreaterThan 20
        & $tokenCalls $byEnvironment | Should -Be 1
    }

    It 'reaches the session named by -Proxy with -ProxyCredential' {
        $parameterTokens[0] | Should -BeGreaterThan 20
        & $tokenCalls $byParameters | Should -Be 1
    }

    It 'reaches the root with the proxy user root (the fake''s ProxyUrl), and nothing else lands there' {
        $parameterTokens[1] | Should -BeGreaterThan 20
        & $tokenCalls $fake | Should -Be 1
    }

    It 'lands in the root without the challenge, which is why Start-PassportalFake turns it on' {
        $parameterTokens[2] | Should -BeGreaterThan 20
        & $tokenCalls $unchallenged | Should -Be 0
        & $tokenCalls $plain | Should -Be 1
    }
}
