# A PowerShell 7 client pinned to the vendor's host reaches its own session through the fake's
# proxy: .NET sends the proxy credentials (HTTPS_PROXY's user info, or -Proxy with
# -ProxyCredential) once the fake challenges with 407, and trusts the fake's CA by SSL_CERT_FILE,
# which .NET on Linux reads once per process: each client runs in a child process (Start-Job).
BeforeAll {
    . (Join-Path $PSScriptRoot 'TestFake.ps1')
    $start = Get-TestFakeStart
    $fake = Start-PassportalFake @start -Https

    # The vendor's token call as the public clients write it, in a fresh process that trusts the
    # fake's CA; returns how many characters the token had.
    $client = {
        param($Module, $Mode, $ProxyUrl, $KeyId, $Secret)
        $ErrorActionPreference = 'Stop'
        Import-Module $Module
        $content = [guid]::NewGuid().ToString('N')
        $call = @{
            Uri     = 'https://us-clover.passportalmsp.com/api/v2/auth/client_token'
            Method  = 'Post'
            Body    = @{ scope = 'docs_api'; content = $content }
            Headers = @{ 'x-key' = $KeyId; 'x-hash' = (New-PassportalHash -Secret $Secret -Content $content) }
        }
        if ($Mode -eq 'parameters') {
            $proxy = [uri]$ProxyUrl
            $user = [uri]::UnescapeDataString($proxy.UserInfo.Split(':')[0])
            $call['Proxy'] = "http://$($proxy.Authority)"
            $call['ProxyCredential'] = New-Object System.Management.Automation.PSCredential ($user, (ConvertTo-SecureString 'x' -AsPlainText -Force))
        } else {
            $env:HTTPS_PROXY = $ProxyUrl
        }
        (Invoke-RestMethod @call).access_token.Length
    }
    $module = (Resolve-Path (Join-Path $PSScriptRoot '../PassportalFake/PassportalFake.psd1')).Path
    function Invoke-ClientProcess([string] $Mode, $Session, $Fake) {
        $saved = $env:SSL_CERT_FILE
        $env:SSL_CERT_FILE = $Fake.CaCertPath
        try {
            Start-Job -ScriptBlock $client -ArgumentList $module, $Mode, $Session.ProxyUrl, $Session.KeyId, $Session.Secret | Receive-Job -Wait -AutoRemoveJob
        } finally {
            $env:SSL_CERT_FILE = $saved
        }
    }
    $tokenCalls = { param($Target) @($Target | Get-PassportalFakeRequest -Path /api/v2/auth/client_token).Count }
}
AfterAll {
    if ($fake) { Stop-PassportalFake $fake }
}

Describe 'the vendor host through the proxy, with the fake CA' {
    It 'has the CA certificate saved for SSL_CERT_FILE' {
        Get-Content -Raw $fake.CaCertPath | Should -Match '^-----BEGIN CERTIFICATE-----'
        $fake.HttpsUrl | Should -Match '^https://127\.0\.0\.1:\d+$'
    }

    It 'reaches the session named by HTTPS_PROXY=http://<sessionId>:x@host:port' {
        $session = New-PassportalFakeSession -Fake $fake
        try {
            Invoke-ClientProcess 'environment' $session $fake | Should -BeGreaterThan 20
            & $tokenCalls $session | Should -Be 1
            & $tokenCalls $fake | Should -Be 0
        } finally {
            $session | Remove-PassportalFakeSession
        }
    }

    It 'reaches the session named by -Proxy with -ProxyCredential' {
        $session = New-PassportalFakeSession -Fake $fake
        try {
            Invoke-ClientProcess 'parameters' $session $fake | Should -BeGreaterThan 20
            & $tokenCalls $session | Should -Be 1
        } finally {
            $session | Remove-PassportalFakeSession
        }
    }

    It 'reaches the root with the proxy user root (the fake''s ProxyUrl)' {
        $before = & $tokenCalls $fake
        Invoke-ClientProcess 'environment' $fake $fake | Should -BeGreaterThan 20
        & $tokenCalls $fake | Should -Be ($before + 1)
    }

    It 'lands in the root without the challenge, which is why Start-PassportalFake turns it on' {
        $plain = Start-PassportalFake @start -Https -Option @{ proxyAuth = 'optional' }
        try {
            $session = New-PassportalFakeSession -Fake $plain
            Invoke-ClientProcess 'environment' $session $plain | Should -BeGreaterThan 20
            & $tokenCalls $session | Should -Be 0
            & $tokenCalls $plain | Should -Be 1
        } finally {
            Stop-PassportalFake $plain
        }
    }
}
