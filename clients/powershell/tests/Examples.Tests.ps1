# The example suite's check bites: a test whose client breaks the contract without declaring it
# fails, and its failure names the violation (method, path, location, message).
BeforeAll {
    . (Join-Path $PSScriptRoot 'TestFake.ps1')
    $start = Get-TestFakeStart
    $fake = Start-PassportalFake @start -Fixtures (Join-Path $PSScriptRoot '../../../examples/fixtures/suite')
}
AfterAll {
    if ($fake) { Stop-PassportalFake $fake }
}

Describe 'examples/powershell/failing/DeliberateViolation.Tests.ps1' {
    It 'fails, naming the violation' {
        $file = (Resolve-Path (Join-Path $PSScriptRoot '../../../examples/powershell/failing/DeliberateViolation.Tests.ps1')).Path
        $pester = (Get-Module Pester).Path
        $env:PASSPORTAL_FAKE_URL = $fake.BaseUrl
        try {
            $output = Start-Job -ArgumentList $pester, $file -ScriptBlock {
                param($Pester, $File)
                Import-Module $Pester
                $result = Invoke-Pester -Path $File -PassThru -Output None
                [pscustomobject]@{
                    Failed = $result.FailedCount
                    Passed = $result.PassedCount
                    Errors = @($result.Failed | ForEach-Object { $_.ErrorRecord | ForEach-Object { $_.Exception.Message } }) -join "`n"
                }
            } | Receive-Job -Wait -AutoRemoveJob
        } finally {
            Remove-Item env:PASSPORTAL_FAKE_URL
        }
        $output.Failed | Should -Be 1
        $output.Errors | Should -Match 'GET /api/v2/documents'
        $output.Errors | Should -Match 'query\.pageNum: needs to be an integer'
    }
}
