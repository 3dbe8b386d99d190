# The per-test check judges each test by what it did: the exact counts of the session's report
# before and after the test. A suite written in the pattern docs/powershell.md shows (one session
# per Describe, checked in AfterEach, no reset) runs in a fresh process, and exactly the tests
# that broke the contract fail, whatever they reset or cleared afterwards.
BeforeAll {
    . (Join-Path $PSScriptRoot 'TestFake.ps1')
    $start = Get-TestFakeStart
    $fake = Start-PassportalFake @start
    $module = (Resolve-Path (Join-Path $PSScriptRoot '../PassportalFake/PassportalFake.psd1')).Path

    # Runs a Pester file in a fresh process; answers the names of the tests that passed and failed, and the failures.
    function Invoke-SuiteProcess([string] $File) {
        $env:PASSPORTAL_FAKE_URL = $fake.BaseUrl
        try {
            Start-Job -ArgumentList (Get-Module Pester).Path, $File -ScriptBlock {
                param($Pester, $File)
                Import-Module $Pester
                $result = Invoke-Pester -Path $File -PassThru -Output None
                [pscustomobject]@{
                    Passed = @($result.Passed | ForEach-Object Name)
                    Failed = @($result.Failed | ForEach-Object Name)
                    Errors = @($result.Failed | ForEach-Object { $_.ErrorRecord | ForEach-Object { $_.Exception.Message } }) -join "`n"
                }
            } | Receive-Job -Wait -AutoRemoveJob
        } finally {
            Remove-Item env:PASSPORTAL_FAKE_URL
        }
    }
}
AfterAll {
    if ($fake) { Stop-PassportalFake $fake }
}

Describe 'the check in the pattern docs/powershell.md shows' {
    BeforeAll {
        $doc = Get-Content -Raw (Join-Path $PSScriptRoot '../../../docs/powershell.md')
        $block = [regex]::Match($doc, '(?s)## A suite.*?```powershell\r?\n(.*?)```').Groups[1].Value
        # The documented check, as written.
        $check = [regex]::Match($block, '(?m)^\s*(AfterEach \{[^\r\n]*HaveNoPassportalViolation[^\r\n]*\})\s*$').Groups[1].Value
        $suite = @"
BeforeAll {
    Import-Module '$module'
    function Get-Documents([string] `$Query) {
        `$token = (`$session | Get-PassportalFakeToken).access_token
        Invoke-WebRequest -Uri "`$(`$session.BaseUrl)/api/v2/documents?`$Query" -Headers @{ 'x-access-token' = `$token } -SkipHttpErrorCheck -NoProxy | Out-Null
    }
}

Describe 'one session, no reset' {
    BeforeAll {
        `$session = New-PassportalFakeSession -Url `$env:PASSPORTAL_FAKE_URL
    }
    $check
    AfterAll { `$session | Remove-PassportalFakeSession }

    It 'keeps the contract first' { Get-Documents 'pageNum=1' }
    It 'asks for page 0' { Get-Documents 'pageNum=0' }
    It 'keeps the contract after a violation' { Get-Documents 'pageNum=1' }
    It 'asks for page 0, then resets' {
        Get-Documents 'pageNum=0'
        `$session | Reset-PassportalFake
    }
    It 'declares a violation that never comes, then resets' {
        `$session | Add-PassportalFakeExpectedViolation -Location query.pageNum | Out-Null
        `$session | Reset-PassportalFake
    }
    It 'declares a violation and provokes it' {
        `$session | Add-PassportalFakeExpectedViolation -Location query.pageNum | Out-Null
        Get-Documents 'pageNum=0'
    }
    It 'asks for page 0, then clears the journal and the report' {
        Get-Documents 'pageNum=0'
        `$session | Clear-PassportalFakeRequest
        `$session | Clear-PassportalFakeReport
    }
    It 'keeps the contract after a cleared report' { Get-Documents 'pageNum=1' }
    It 'clears the report behind the module' {
        Invoke-WebRequest -Method Delete -Uri "`$(`$session.AdminUrl)/report" -NoProxy | Out-Null
    }
    It 'keeps the contract at the end' { Get-Documents 'pageNum=1' }
}
"@
        $file = Join-Path $TestDrive 'Blame.Tests.ps1'
        Set-Content -LiteralPath $file -Value $suite
        $result = Invoke-SuiteProcess $file
    }

    It 'is the AfterEach check on the session' {
        $check | Should -Be 'AfterEach { $session | Should -HaveNoPassportalViolation }'
    }

    It 'fails exactly the tests that broke the contract, a reset or a cleared report hiding nothing' {
        $result.Failed | Should -Be @(
            'asks for page 0'
            'asks for page 0, then resets'
            'declares a violation that never comes, then resets'
            'asks for page 0, then clears the journal and the report'
            'clears the report behind the module'
        )
        $result.Passed | Should -Be @(
            'keeps the contract first'
            'keeps the contract after a violation'
            'declares a violation and provokes it'
            'keeps the contract after a cleared report'
            'keeps the contract at the end'
        )
    }

    It 'names in each failure what that test did, and the counts' {
        $result.Errors | Should -Match 'found 1 violating request\(s\) and 0 expected violation\(s\) that never came'
        $result.Errors | Should -Match 'query\.pageNum: needs to be an integer'
        $result.Errors | Should -Match 'found 0 violating request\(s\) and 1 expected violation\(s\) that never came'
        $result.Errors | Should -Match 'expected a violation that never came: query\.pageNum'
        $result.Errors | Should -Match 'the report was cleared since the previous check'
    }
}

Describe 'Assert-PassportalFakeNoViolation outside Pester' {
    It 'judges what came since the previous check, or since the session was created' {
        $session = New-PassportalFakeSession -Fake $fake
        try {
            $token = ($session | Get-PassportalFakeToken).access_token
            Invoke-DocumentsList $session $token 'pageNum=0' | Out-Null
            $session | Reset-PassportalFake
            { $session | Assert-PassportalFakeNoViolation } | Should -Throw '*found 1 violating request(s)*'
            $session | Assert-PassportalFakeNoViolation
            # A URL this module did not create is judged on its whole report the first time.
            { Assert-PassportalFakeNoViolation -Url $session.BaseUrl.Replace('127.0.0.1', 'localhost') } | Should -Throw '*found 1 violating request(s)*'
        } finally {
            $session | Remove-PassportalFakeSession
        }
    }
}
