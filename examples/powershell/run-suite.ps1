<#
.SYNOPSIS
Runs the example suite: starts the fake, runs the Pester files here, writes Pester's result and the fake's run report, stops the fake.
.DESCRIPTION
Pester 5 has no run-wide setup, so this script is it: one fake for the whole run (the npm
command, or the image with -Image), with HTTPS for the vendor-host test; every session labelled
with one run, whose report (JUnit) the CI shows next to Pester's own (NUnit). Fails when a test
fails or the run's report finds a violation or an expected violation that never came.
.PARAMETER Image
Start this container image instead of the npm command.
.PARAMETER OutputDirectory
Where pester-results.xml (NUnit) and passportal-fake.junit.xml go. Default: ./test-results.
.PARAMETER ExcludeTag
Pester tags to leave out.
.EXAMPLE
pwsh examples/powershell/run-suite.ps1
.EXAMPLE
pwsh examples/powershell/run-suite.ps1 -Image passportal-docs-fake:local
#>
param(
    [string] $Image,
    [string] $OutputDirectory = 'test-results',
    [string[]] $ExcludeTag = @()
)
$ErrorActionPreference = 'Stop'
Import-Module (Join-Path $PSScriptRoot '../../clients/powershell/PassportalFake/PassportalFake.psd1')
if (-not (Get-Module Pester)) { Import-Module Pester -MinimumVersion 5.0 }

$start = @{ Https = $true; Fixtures = (Join-Path $PSScriptRoot '../fixtures/suite') }
if ($Image) { $start['Image'] = $Image } else { $start['UseNode'] = $true }
$fake = Start-PassportalFake @start
New-Item -ItemType Directory -Force -Path $OutputDirectory | Out-Null
$run = 'pester-' + (Get-Date -Format 'yyyyMMdd-HHmmss') + '-' + [guid]::NewGuid().ToString('N').Substring(0, 6)
$env:PASSPORTAL_FAKE_URL = $fake.BaseUrl
$env:PASSPORTAL_RUN = $run
try {
    $configuration = New-PesterConfiguration
    $configuration.Run.Path = @(Get-ChildItem -LiteralPath $PSScriptRoot -Filter '*.Tests.ps1' | ForEach-Object FullName)
    $configuration.Run.PassThru = $true
    $configuration.Filter.ExcludeTag = $ExcludeTag
    $configuration.TestResult.Enabled = $true
    $configuration.TestResult.OutputFormat = 'NUnitXml'
    $configuration.TestResult.OutputPath = Join-Path $OutputDirectory 'pester-results.xml'
    $result = Invoke-Pester -Configuration $configuration

    Get-PassportalFakeReport -Fake $fake -Run $run -Format junit -OutFile (Join-Path $OutputDirectory 'passportal-fake.junit.xml') | Out-Null
    $summary = (Get-PassportalFakeReport -Fake $fake -Run $run).summary
    $failures = $result.FailedCount
    if ($summary.violatingRequests -gt 0 -or $summary.unmetExpectations -gt 0) {
        Write-Host "The fake's report of run $run`: $($summary.violatingRequests) violating requests, $($summary.unmetExpectations) expected violations that never came."
        $failures++
    }
} finally {
    Stop-PassportalFake $fake
}
exit $failures
