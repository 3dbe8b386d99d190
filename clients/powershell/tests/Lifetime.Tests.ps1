# A fake the module started never outlives the PowerShell that started it: the npm command
# watches a pipe from that process and ends when the pipe closes, however the process ends (a
# script that throws or exits before Stop-PassportalFake, a killed runner). Each case runs in a
# PowerShell process of its own, which writes the fake's process id and URL to a file.
BeforeAll {
    . (Join-Path $PSScriptRoot 'TestFake.ps1')
    $module = (Resolve-Path (Join-Path $PSScriptRoot '../PassportalFake/PassportalFake.psd1')).Path
    # This PowerShell's own executable (a .NET tool's process is dotnet itself).
    $pwsh = Join-Path $PSHOME 'pwsh'
    if ($IsWindows) { $pwsh += '.exe' }

    # Whether a process with this id still runs.
    function Test-Running([int] $Id) { $null -ne (Get-Process -Id $Id -ErrorAction SilentlyContinue) }

    # Waits up to -Seconds for the condition; answers whether it came.
    function Wait-Until([scriptblock] $Condition, [int] $Seconds) {
        $deadline = [DateTime]::UtcNow.AddSeconds($Seconds)
        while ([DateTime]::UtcNow -lt $deadline) {
            if (& $Condition) { return $true }
            Start-Sleep -Milliseconds 200
        }
        [bool](& $Condition)
    }
}

Describe 'a fake started by the module ends with the PowerShell that started it' {
    It 'ends when the script <How> before Stop-PassportalFake' -ForEach @(
        @{ How = 'throws'; Ending = 'throw "the suite broke"'; Kill = $false }
        @{ How = 'exits'; Ending = 'exit 3'; Kill = $false }
        @{ How = 'is killed'; Ending = 'Start-Sleep -Seconds 600'; Kill = $true }
    ) {
        $info = Join-Path $TestDrive ([guid]::NewGuid().ToString('N') + '.txt')
        # The script ends only once the test has seen its fake answer (else a quick exit races the check).
        $go = Join-Path $TestDrive ([guid]::NewGuid().ToString('N') + '.go')
        $script = Join-Path $TestDrive ([guid]::NewGuid().ToString('N') + '.ps1')
        Set-Content -LiteralPath $script -Value @"
`$ErrorActionPreference = 'Stop'
Import-Module '$module'
`$fake = Start-PassportalFake -UseNode
Set-Content -LiteralPath '$info' -Value "`$(`$fake.Process.Id) `$(`$fake.BaseUrl)"
while (-not (Test-Path -LiteralPath '$go')) { Start-Sleep -Milliseconds 100 }
$Ending
"@
        $runner = Start-Process -FilePath $pwsh -ArgumentList @('-NoProfile', '-NonInteractive', '-File', $script) -PassThru `
            -RedirectStandardOutput (Join-Path $TestDrive 'out.txt') -RedirectStandardError (Join-Path $TestDrive 'err.txt')
        try {
            $started = Wait-Until { (Test-Path -LiteralPath $info) -and (Get-Content -Raw -LiteralPath $info) -match '\S+ \S+' } 90
            $started | Should -BeTrue -Because "the script starts a fake ($(Get-Content -Raw (Join-Path $TestDrive 'err.txt')))"
            $fakeId, $url = (Get-Content -Raw -LiteralPath $info).Trim() -split ' '
            (Invoke-RestMethod "$url/__admin/health" -NoProxy).status | Should -Be 'ok'
            Set-Content -LiteralPath $go -Value 'go'
            if ($Kill) { Stop-Process -Id $runner.Id -Force }
            Wait-Until { $runner.HasExited } 60 | Should -BeTrue
            Wait-Until { -not (Test-Running $fakeId) } 15 | Should -BeTrue -Because 'the fake ends when the PowerShell that started it is gone'
            { Invoke-RestMethod "$url/__admin/health" -NoProxy -TimeoutSec 5 } | Should -Throw
        } finally {
            if (-not $runner.HasExited) { Stop-Process -Id $runner.Id -Force }
            if ($fakeId -and (Test-Running $fakeId)) { Stop-Process -Id $fakeId -Force }
        }
    }
}

# A case only in the suite's image stage (PASSPORTAL_FAKE_IMAGE set): the npm command's are above.
if ($env:PASSPORTAL_FAKE_IMAGE) {
    Describe 'a fake started from the image ends with the PowerShell that started it' {
        It 'removes the container of <Image> when the script is killed before Stop-PassportalFake' -ForEach @(
            @{ Image = $env:PASSPORTAL_FAKE_IMAGE }
        ) {
            $info = Join-Path $TestDrive ([guid]::NewGuid().ToString('N') + '.txt')
            $script = Join-Path $TestDrive ([guid]::NewGuid().ToString('N') + '.ps1')
            Set-Content -LiteralPath $script -Value @"
`$ErrorActionPreference = 'Stop'
Import-Module '$module'
`$fake = Start-PassportalFake -Image '$Image'
Set-Content -LiteralPath '$info' -Value "`$(`$fake.Engine) `$(`$fake.ContainerId) `$(`$fake.BaseUrl)"
Start-Sleep -Seconds 600
"@
            $runner = Start-Process -FilePath $pwsh -ArgumentList @('-NoProfile', '-NonInteractive', '-File', $script) -PassThru `
                -RedirectStandardOutput (Join-Path $TestDrive 'out.txt') -RedirectStandardError (Join-Path $TestDrive 'err.txt')
            try {
                $started = Wait-Until { (Test-Path -LiteralPath $info) -and (Get-Content -Raw -LiteralPath $info) -match '\S+ \S+ \S+' } 120
                $started | Should -BeTrue -Because "the script starts a fake ($(Get-Content -Raw (Join-Path $TestDrive 'err.txt')))"
                $engine, $containerId, $url = (Get-Content -Raw -LiteralPath $info).Trim() -split ' '
                (Invoke-RestMethod "$url/__admin/health" -NoProxy).status | Should -Be 'ok'
                Stop-Process -Id $runner.Id -Force
                Wait-Until { $runner.HasExited } 60 | Should -BeTrue
                $gone = Wait-Until { -not (& $engine ps -aq --no-trunc 2>$null | Where-Object { $containerId.StartsWith($_) -or $_.StartsWith($containerId) }) } 30
                $gone | Should -BeTrue -Because 'the container is removed once the PowerShell that started it is gone'
            } finally {
                if (-not $runner.HasExited) { Stop-Process -Id $runner.Id -Force }
                if ($containerId) { & $engine rm -f $containerId *> $null }
            }
        }
    }
}
