# PassportalFake: start the Passportal Documents API fake, drive its admin API, and check its
# verdict from Pester. Each file holds one group of commands; the manifest names what is exported.
Set-StrictMode -Version 1.0

foreach ($folder in @('Private', 'Public')) {
    foreach ($file in Get-ChildItem -LiteralPath (Join-Path $PSScriptRoot $folder) -Filter '*.ps1' | Sort-Object Name) {
        . $file.FullName
    }
}

# Inside Invoke-Pester (Pester loaded first), Should -HaveNoPassportalViolation is there at once.
if (Get-Command Add-ShouldOperator -ErrorAction SilentlyContinue) {
    try { Register-PassportalFakeShouldOperator } catch { Write-Verbose "Should -HaveNoPassportalViolation: $($_.Exception.Message)" }
}

# Fakes still running when the module is removed (Remove-Module, Import-Module -Force) are stopped.
$ExecutionContext.SessionState.Module.OnRemove = {
    Stop-StartedFake
    Remove-Item -Path function:global:Should-HaveNoPassportalViolation -ErrorAction SilentlyContinue
}
