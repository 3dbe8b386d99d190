# The same client pinned to the vendor's host, https://us-clover.passportalmsp.com, reaching its
# own session through the fake's proxy (HTTPS_PROXY with the session id as the proxy user) and
# trusting the fake's CA beside the machine's (the CA bundle), with NO_PROXY for its other
# services: the environment Get-PassportalFakeEnvironment gives. .NET on Linux reads these once
# per process, so the client runs in a process of its own (Start-Job) started after they are set.
BeforeAll {
    Import-Module (Join-Path $PSScriptRoot '../../clients/powershell/PassportalFake/PassportalFake.psd1')
}

Describe 'the client pinned to us-clover.passportalmsp.com' {
    BeforeAll {
        $session = New-PassportalFakeSession -Url $env:PASSPORTAL_FAKE_URL -Run $env:PASSPORTAL_RUN
    }
    AfterEach { $session | Should -HaveNoPassportalViolation }
    AfterAll { $session | Remove-PassportalFakeSession }

    It 'reads its clients and a document through the proxy, in its own session' {
        $environment = $session | Get-PassportalFakeEnvironment
        foreach ($name in $environment.Keys) { Set-Item "env:$name" $environment[$name] }
        try {
            $job = Start-Job -ArgumentList (Join-Path $PSScriptRoot 'passportal-client.ps1'), $session.KeyId, $session.Secret -ScriptBlock {
                param($Client, $KeyId, $Secret)
                $ErrorActionPreference = 'Stop'
                . $Client
                Connect-Passportal -BaseUrl https://us-clover.passportalmsp.com -KeyId $KeyId -Secret $Secret
                [pscustomobject]@{ Clients = @(Get-PassportalClient).Count; Label = (Get-PassportalDocument -Id 300006).details.name.value.text }
            }
            $answer = $job | Receive-Job -Wait -AutoRemoveJob
        } finally {
            foreach ($name in $environment.Keys) { Remove-Item "env:$name" -ErrorAction SilentlyContinue }
        }
        $answer.Clients | Should -Be 2
        $answer.Label | Should -Not -BeNullOrEmpty
        $journal = @($session | Get-PassportalFakeRequest)
        $journal.host | Should -Contain 'us-clover.passportalmsp.com'
        $journal.path | Should -Contain '/api/v2/documents/300006'
    }
}
