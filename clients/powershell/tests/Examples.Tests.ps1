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

Describe 'the suite docs/powershell.md shows' {
    It 'passes as written, with the example client and fixtures beside it' {
        $doc = Get-Content -Raw (Join-Path $PSScriptRoot '../../../docs/powershell.md')
        $block = [regex]::Match($doc, '(?s)## A suite.*?```powershell\r?\n(.*?)```').Groups[1].Value
        $block | Should -Match 'Should -HaveNoPassportalViolation'
        $folder = Join-Path $TestDrive 'docs-suite'
        New-Item -ItemType Directory -Path $folder | Out-Null
        Set-Content -LiteralPath (Join-Path $folder 'Documents.Tests.ps1') -Value $block
        Copy-Item (Join-Path $PSScriptRoot '../../../examples/powershell/passportal-client.ps1') $folder
        Copy-Item -Recurse (Join-Path $PSScriptRoot '../../../examples/fixtures/suite') (Join-Path $folder 'fixtures')
        $modules = (Resolve-Path (Join-Path $PSScriptRoot '..')).Path
        $output = Start-Job -ArgumentList (Get-Module Pester).Path, $folder, $modules -ScriptBlock {
            param($Pester, $Folder, $Modules)
            $env:PSModulePath = $Modules + [IO.Path]::PathSeparator + $env:PSModulePath
            Import-Module $Pester
            $result = Invoke-Pester -Path $Folder -PassThru -Output None
            [pscustomobject]@{
                Passed = $result.PassedCount
                Failed = $result.FailedCount
                Errors = @($result.Failed | ForEach-Object { $_.ErrorRecord | ForEach-Object { $_.Exception.Message } }) -join "`n"
            }
        } | Receive-Job -Wait -AutoRemoveJob
        $output.Errors | Should -BeNullOrEmpty
        $output.Failed | Should -Be 0
        $output.Passed | Should -Be 4
    }
}
