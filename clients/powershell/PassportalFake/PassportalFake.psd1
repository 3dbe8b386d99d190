@{
    RootModule           = 'PassportalFake.psm1'
    ModuleVersion        = '0.1.0'
    GUID                 = 'a3c51f0e-7a52-4c5e-9d0b-2f6e4b8d1c37'
    Author               = 'passportal-docs-fake contributors'
    CompanyName          = 'passportal-docs-fake'
    Copyright            = '(c) passportal-docs-fake contributors. MIT License.'
    Description          = 'Pester-ready helpers for the Passportal Documents API fake: start it (npm command or container image), sessions, faults, clock, journal, expected violations, reports, the vendor token call, and Should -HaveNoPassportalViolation.'
    PowerShellVersion    = '5.1'
    FormatsToProcess     = @('PassportalFake.Format.ps1xml')
    TypesToProcess       = @('PassportalFake.Types.ps1xml')
    CompatiblePSEditions = @('Desktop', 'Core')
    FunctionsToExport    = @(
        'Start-PassportalFake'
        'Stop-PassportalFake'
        'New-PassportalHash'
        'Get-PassportalFakeToken'
        'Register-PassportalFakeShouldOperator'
        'Get-PassportalFakeHealth'
        'Invoke-PassportalFakeDrain'
        'Reset-PassportalFake'
        'Import-PassportalFakeFixture'
        'Get-PassportalFakeState'
        'Get-PassportalFakeRequest'
        'Clear-PassportalFakeRequest'
        'Get-PassportalFakeViolation'
        'Assert-PassportalFakeNoViolation'
        'Get-PassportalFakeNotice'
        'Get-PassportalFakeReport'
        'Get-PassportalFakeHar'
        'Clear-PassportalFakeReport'
        'Add-PassportalFakeFault'
        'Get-PassportalFakeFault'
        'Clear-PassportalFakeFault'
        'Remove-PassportalFakeFault'
        'Get-PassportalFakeClock'
        'Set-PassportalFakeClock'
        'Revoke-PassportalFakeToken'
        'Get-PassportalFakeSetting'
        'Set-PassportalFakeSetting'
        'New-PassportalFakeSession'
        'Get-PassportalFakeSession'
        'Remove-PassportalFakeSession'
        'Add-PassportalFakeExpectedViolation'
        'Get-PassportalFakeExpectedViolation'
        'Clear-PassportalFakeExpectedViolation'
        'Remove-PassportalFakeExpectedViolation'
        'Add-PassportalFakeRateLimit'
        'Get-PassportalFakeRateLimit'
        'Clear-PassportalFakeRateLimit'
        'Remove-PassportalFakeRateLimit'
        'Get-PassportalFakeScenario'
        'Invoke-PassportalFakeScenario'
        'Clear-PassportalFakeScenario'
        'Get-PassportalFakeEnvironment'
    )
    CmdletsToExport      = @()
    VariablesToExport    = @()
    AliasesToExport      = @()
    FileList             = @()
    PrivateData          = @{
        PSData = @{
            Tags         = @('Passportal', 'Pester', 'Testing', 'Mock', 'Fake', 'ContractTesting', 'API', 'PSEdition_Core', 'PSEdition_Desktop', 'Windows', 'Linux', 'MacOS')
            LicenseUri   = 'https://opensource.org/licenses/MIT'
            ReleaseNotes = 'The fake starts on port 0 and ends with its PowerShell; each check judges what happened since the previous one by exact counts; the journal is read whole; token calls as JSON; the CA bundle and Get-PassportalFakeEnvironment; no secret in default output; parameters and bounds from the spec''s fields (-Partial on Get-PassportalFakeSession, lengths, -Seed and -Status bounded); a refused connection and an unknown item are non-terminating errors with stable ids (ConnectionError, ObjectNotFound); OutputType on every Get- and New- command; the started fake''s Source; -Fake (-Session, -Url) typed PassportalFakeTarget, which help shows, taking what it took; Get-PassportalFakeToken''s failures as error records (PassportalFake.Http<status>, PassportalFake.ConnectionFailed), its message as before. See docs/powershell.md.'
        }
    }
}
