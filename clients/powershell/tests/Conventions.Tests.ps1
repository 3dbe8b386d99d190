# What PowerShell users look for in a module, checked on the module as loaded: output types
# declared, the manifest's gallery data, and which fake Start-PassportalFake started.
BeforeAll {
    . (Join-Path $PSScriptRoot 'TestFake.ps1')
}

Describe 'the module as PowerShell users read it' {
    It 'declares [OutputType] on every Get- and New- command' {
        $commands = @(Get-Command -Module PassportalFake | Where-Object Name -Match '^(Get|New)-')
        $commands.Count | Should -BeGreaterThan 15
        @($commands | Where-Object { $_.OutputType.Count -eq 0 } | ForEach-Object Name) | Should -BeNullOrEmpty
    }

    It "gives the gallery a licence and release notes" {
        $manifest = Import-PowerShellDataFile -LiteralPath (Join-Path $PSScriptRoot '../PassportalFake/PassportalFake.psd1')
        $manifest.PrivateData.PSData.LicenseUri | Should -Match '^https://'
        $manifest.PrivateData.PSData.ReleaseNotes | Should -Not -BeNullOrEmpty
    }
}

Describe 'Start-PassportalFake says which fake it started' {
    It 'in a verbose message and on the fake' {
        $messages = $null
        $fake = Start-PassportalFake -UseNode -Verbose 4>&1 | Tee-Object -Variable messages | Where-Object { $_ -isnot [System.Management.Automation.VerboseRecord] }
        try {
            $fake.Source | Should -BeLike "this repository's build (*start.js)"
            @($messages | Where-Object { $_ -is [System.Management.Automation.VerboseRecord] } | ForEach-Object Message) | Should -Contain "Start-PassportalFake: starting $($fake.Source)"
        } finally { Stop-PassportalFake $fake }
    }
}
