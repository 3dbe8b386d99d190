<#
.SYNOPSIS
Runs Pester test files with one given Pester (a folder holding Pester.psd1), failing on any failure.
.PARAMETER PesterPath
The Pester module's manifest (from the NuGet cache: ~/.nuget/packages/pester/<version>/tools/Pester.psd1).
.PARAMETER Path
Test files or folders.
.PARAMETER ExcludeTag
Tags to leave out.
.PARAMETER ResultFile
Where to write Pester's own result (JUnit XML).
#>
param(
    [Parameter(Mandatory)] [string] $PesterPath,
    [Parameter(Mandatory)] [string[]] $Path,
    [string[]] $ExcludeTag = @(),
    [string] $ResultFile
)
$ErrorActionPreference = 'Stop'
Import-Module $PesterPath -Force
$configuration = New-PesterConfiguration
$configuration.Run.Path = $Path
$configuration.Run.Exit = $true
$configuration.Output.Verbosity = 'Normal'
$configuration.Filter.ExcludeTag = $ExcludeTag
if ($ResultFile) {
    $configuration.TestResult.Enabled = $true
    $configuration.TestResult.OutputFormat = 'JUnitXml'
    $configuration.TestResult.OutputPath = $ResultFile
}
Invoke-Pester -Configuration $configuration
