# Expected violations, run reports, rate limits, scenarios and the fuller faults: the admin
# operations of docs/admin-api.md added with them, driven through the module.
BeforeAll {
    . (Join-Path $PSScriptRoot 'TestFake.ps1')
    $start = Get-TestFakeStart
    $fake = Start-PassportalFake @start
}
AfterAll {
    if ($fake) { Stop-PassportalFake $fake }
}

Describe 'expected violations' {
    BeforeAll {
        $session = New-PassportalFakeSession -Fake $fake
    }
    AfterAll {
        $session | Remove-PassportalFakeSession
    }
    BeforeEach {
        $session | Reset-PassportalFake
        $token = ($session | Get-PassportalFakeToken).access_token
    }

    It 'passes a violation declared before it is provoked, and lists the declaration as met' {
        $id = $session | Add-PassportalFakeExpectedViolation -Method GET -Path /api/v2/documents -Location query.pageNum
        $id | Should -Not -BeNullOrEmpty
        (Invoke-DocumentsList $session $token 'pageNum=0').Status | Should -Be 404
        $session | Should -HaveNoPassportalViolation
        @($session | Get-PassportalFakeViolation).Count | Should -Be 0
        $declared = @($session | Get-PassportalFakeExpectedViolation)
        $declared.Count | Should -Be 1
        $declared[0].met | Should -Be 1
    }

    It 'fails on a declaration never met, naming it' {
        $session | Add-PassportalFakeExpectedViolation -Method PATCH -Path '/api/v2/documents*' -Location body/0/templateUid | Out-Null
        $err = { $session | Should -HaveNoPassportalViolation } | Should -Throw -PassThru
        $err.Exception.Message | Should -Match 'expected a violation that never came: PATCH /api/v2/documents\* body/0/templateUid'
        # Each check judges what came since the previous one: a new declaration for Assert.
        $session | Add-PassportalFakeExpectedViolation -Method GET -Location query.pageNum | Out-Null
        { $session | Assert-PassportalFakeNoViolation } | Should -Throw '*never came: GET query.pageNum*'
    }

    It 'removes declarations one by one through the pipeline, or all at once' {
        $session | Add-PassportalFakeExpectedViolation -Location query.pageNum | Out-Null
        $session | Add-PassportalFakeExpectedViolation -Location query.resultsPerPage -Times 2 | Out-Null
        $session | Get-PassportalFakeExpectedViolation | Select-Object -First 1 | Remove-PassportalFakeExpectedViolation
        @($session | Get-PassportalFakeExpectedViolation).Count | Should -Be 1
        $session | Clear-PassportalFakeExpectedViolation
        @($session | Get-PassportalFakeExpectedViolation).Count | Should -Be 0
        { Remove-PassportalFakeExpectedViolation -Session $session -Id no-such-id -ErrorAction Stop } | Should -Throw '*answered 404*'
    }
}

Describe 'a run across sessions' {
    It 'labels sessions with a run and reports the run as one JUnit file after the sessions are gone' {
        $run = 'pester-' + [guid]::NewGuid().ToString('N').Substring(0, 8)
        $a = New-PassportalFakeSession -Fake $fake -Run $run
        $b = New-PassportalFakeSession -Fake $fake -Run $run
        (Get-PassportalFakeSession -Fake $fake | Where-Object id -eq $a.Id).run | Should -Be $run
        $token = ($a | Get-PassportalFakeToken).access_token
        Invoke-DocumentsList $a $token 'pageNum=0' | Out-Null
        $a, $b | Remove-PassportalFakeSession
        $report = Get-PassportalFakeReport -Fake $fake -Run $run
        $report.summary.violatingRequests | Should -Be 1
        $file = Get-PassportalFakeReport -Fake $fake -Run $run -Format junit -OutFile (Join-Path $TestDrive 'run.xml')
        ([xml](Get-Content -Raw $file.FullName)).testsuites | Should -Not -BeNullOrEmpty
        Clear-PassportalFakeReport -Fake $fake -Run $run
    }
}

Describe 'rate limits, scenarios and fault headers' {
    BeforeAll {
        $session = New-PassportalFakeSession -Fake $fake
    }
    AfterAll {
        $session | Remove-PassportalFakeSession
    }
    BeforeEach {
        $session | Reset-PassportalFake
        $token = ($session | Get-PassportalFakeToken).access_token
    }

    It 'throttles past the limit, lists the limit, and removes it through the pipeline' {
        $session | Add-PassportalFakeRateLimit -Per session -Limit 1 -WindowSeconds 60 -Path /api/v2/documents | Out-Null
        (Invoke-DocumentsList $session $token).Status | Should -Be 200
        (Invoke-DocumentsList $session $token).Status | Should -Be 429
        @($session | Get-PassportalFakeRateLimit).Count | Should -Be 1
        $session | Get-PassportalFakeRateLimit | Remove-PassportalFakeRateLimit
        (Invoke-DocumentsList $session $token).Status | Should -Be 200
        $session | Add-PassportalFakeRateLimit -Per token -Limit 5 -WindowSeconds 1 | Out-Null
        $session | Clear-PassportalFakeRateLimit
        @($session | Get-PassportalFakeRateLimit).Count | Should -Be 0
    }

    It 'lists the built-in scenarios, applies one and clears it' {
        $names = ($session | Get-PassportalFakeScenario).scenarios.name
        $names | Should -Contain 'token-expires-mid-crawl'
        $names | Should -Contain 'flaky'
        $session | Invoke-PassportalFakeScenario -Name token-expires-mid-crawl -Parameter @{ afterRequests = 1 } | Should -Not -BeNullOrEmpty
        @(($session | Get-PassportalFakeScenario).applied).Count | Should -Be 1
        $session | Clear-PassportalFakeScenario
        @(($session | Get-PassportalFakeScenario).applied).Count | Should -Be 0
    }

    It 'sends fault headers, and lets the first matches through with -After' {
        $session | Add-PassportalFakeFault -Path /api/v2/documents -Status 503 -Headers @{ 'Retry-After' = '7' } -After 1 -Times 1 | Out-Null
        (Invoke-DocumentsList $session $token).Status | Should -Be 200
        $failed = Invoke-DocumentsList $session $token
        $failed.Status | Should -Be 503
        "$($failed.Headers['Retry-After'])" | Should -Be '7'
    }
}

Describe 'drain' {
    It 'answers 409 outside a fleet, and sessions are still created' {
        { Invoke-PassportalFakeDrain -Fake $fake } | Should -Throw '*answered 409*'
        $session = New-PassportalFakeSession -Fake $fake
        $session | Remove-PassportalFakeSession
    }
}
