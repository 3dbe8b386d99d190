# A test whose client breaks the contract without declaring it: it must fail, naming the
# violation. Not part of the suite: the module's tests run it to prove the check bites.
BeforeAll {
    Import-Module (Join-Path $PSScriptRoot '../../../clients/powershell/PassportalFake/PassportalFake.psd1')
    . (Join-Path $PSScriptRoot '../passportal-client.ps1')
}

Describe 'a client that asks for page 0' {
    BeforeAll {
        $session = New-PassportalFakeSession -Url $env:PASSPORTAL_FAKE_URL
        Connect-Passportal -BaseUrl $session.BaseUrl -KeyId $session.KeyId -Secret $session.Secret
    }
    AfterEach { $session | Should -HaveNoPassportalViolation }
    AfterAll { $session | Remove-PassportalFakeSession }

    It 'lists the first page the wrong way' {
        try { Invoke-PassportalRequest 'documents?pageNum=0' | Out-Null } catch { Write-Verbose 'the fake refused page 0' }
    }
}
