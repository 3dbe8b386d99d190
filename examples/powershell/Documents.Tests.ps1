# A Pester suite over passportal-client.ps1 against the fake: one session per Describe, checked
# after every test; a 503 and the client's retry; token expiry by the fake's clock; a request
# that breaks the contract on purpose, declared as expected. run-suite.ps1 starts the fake and
# gives PASSPORTAL_FAKE_URL and PASSPORTAL_RUN.
BeforeAll {
    Import-Module (Join-Path $PSScriptRoot '../../clients/powershell/PassportalFake/PassportalFake.psd1')
    . (Join-Path $PSScriptRoot 'passportal-client.ps1')
}

Describe 'reading: clients, the crawl, one document' {
    BeforeAll {
        $session = New-PassportalFakeSession -Url $env:PASSPORTAL_FAKE_URL -Run $env:PASSPORTAL_RUN
        Connect-Passportal -BaseUrl $session.BaseUrl -KeyId $session.KeyId -Secret $session.Secret
    }
    AfterEach { $session | Should -HaveNoPassportalViolation }
    AfterAll { $session | Remove-PassportalFakeSession }

    It 'pages the clients of its organization' {
        $clients = @(Get-PassportalClient -PageSize 1)
        $clients.name | Should -Be @('Quayside Bakery', 'Lighthouse Dental')
    }

    It 'crawls documents/all per type and client until an empty page' {
        $ids = @(Get-PassportalDocumentAll -PageSize 2 | ForEach-Object id | Sort-Object)
        $ids | Should -Be @(300001, 300002, 300003, 300004, 300005, 300006)
    }

    It 'reads one document' {
        (Get-PassportalDocument -Id 300001).details.serial_number.value.text | Should -Be 'SN-BK-0001'
    }
}

Describe 'writing: a batch update' {
    BeforeAll {
        $session = New-PassportalFakeSession -Url $env:PASSPORTAL_FAKE_URL -Run $env:PASSPORTAL_RUN
        Connect-Passportal -BaseUrl $session.BaseUrl -KeyId $session.KeyId -Secret $session.Secret
    }
    AfterEach { $session | Should -HaveNoPassportalViolation }
    AfterAll { $session | Remove-PassportalFakeSession }

    It 'renames two documents in one call' {
        (Update-PassportalDocumentTitle -TemplateUid tpl-79 -Titles @{ 300001 = 'Till PC'; 300002 = 'Office PC' }).success | Should -Be 'true'
        $patch = @($session | Get-PassportalFakeRequest -Method PATCH -Path /api/v2/documents)
        $patch.Count | Should -Be 1
        $patch[0].status | Should -Be 200
    }
}

Describe 'when the service fails' {
    BeforeAll {
        $session = New-PassportalFakeSession -Url $env:PASSPORTAL_FAKE_URL -Run $env:PASSPORTAL_RUN
        Connect-Passportal -BaseUrl $session.BaseUrl -KeyId $session.KeyId -Secret $session.Secret
    }
    BeforeEach { $session | Clear-PassportalFakeRequest }
    AfterEach { $session | Should -HaveNoPassportalViolation }
    AfterAll { $session | Remove-PassportalFakeSession }

    It 'retries a 503' {
        $session | Add-PassportalFakeFault -Method GET -Path /api/v2/documents/300001 -Status 503 -Times 1 | Out-Null
        (Get-PassportalDocument -Id 300001).id | Should -Be 300001
        @($session | Get-PassportalFakeRequest -Path /api/v2/documents/300001 -Order asc).status | Should -Be @(503, 200)
    }

    It 'gets a new token when the old one expires' {
        $session | Set-PassportalFakeClock -AdvanceSeconds 3600 | Out-Null
        (Get-PassportalDocument -Id 300001).id | Should -Be 300001
        @($session | Get-PassportalFakeRequest -Path /api/v2/auth/client_token).Count | Should -Be 1
    }
}

Describe 'a request that breaks the contract on purpose' -Tag 'ExpectedViolations' {
    BeforeAll {
        $session = New-PassportalFakeSession -Url $env:PASSPORTAL_FAKE_URL -Run $env:PASSPORTAL_RUN
        Connect-Passportal -BaseUrl $session.BaseUrl -KeyId $session.KeyId -Secret $session.Secret
    }
    AfterEach { $session | Should -HaveNoPassportalViolation }
    AfterAll { $session | Remove-PassportalFakeSession }

    It 'is refused, and passes as declared' {
        $session | Add-PassportalFakeExpectedViolation -Method GET -Path /api/v2/documents -Location query.pageNum | Out-Null
        { Invoke-PassportalRequest 'documents?pageNum=0' } | Should -Throw
    }
}
