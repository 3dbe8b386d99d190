# The per-test verdict: each check of a fake or session (Should -HaveNoPassportalViolation,
# Should-HaveNoPassportalViolation, Assert-PassportalFakeNoViolation) judges what happened since
# the previous check of the same fake or session, or since it was started or created, by the
# exact counts of its report (violating requests, declarations never met). The report's counts
# survive resets, fixture loads and cleared journals, so nothing a test does hides a violation,
# and a violation fails the check that follows it only: in AfterEach, the test that caused it.

# One store for the whole process: a module imported again (Import-Module -Force) keeps judging
# from the same counts, and so does a Should operator Pester still holds from the earlier import.
$script:VerdictBaselines = [System.AppDomain]::CurrentDomain.GetData('PassportalFake.VerdictBaselines')
if ($null -eq $script:VerdictBaselines) {
    $script:VerdictBaselines = [hashtable]::Synchronized(@{})
    [System.AppDomain]::CurrentDomain.SetData('PassportalFake.VerdictBaselines', $script:VerdictBaselines)
}

function Get-VerdictCount {
    # The counts a check compares, from GET /__admin/report: since when the report counts, the
    # violating requests, the declarations never met, and the findings the report still lists.
    param($Target)
    $report = Invoke-FakeAdmin -Target $Target -Method GET -Path '/report'
    $lastViolation = 0
    foreach ($record in @($report.violations)) {
        if ($null -ne $record -and [long]$record.requestId -gt $lastViolation) { $lastViolation = [long]$record.requestId }
    }
    # ConvertFrom-Json in PowerShell 7 reads the ISO time as a date: kept to the tick.
    $since = $report.since
    if ($since -is [datetime]) { $since = $since.ToUniversalTime().ToString('o') }
    [pscustomobject]@{
        Since = [string]$since
        Violating = [long]$report.summary.violatingRequests
        Unmet = [long]$report.summary.unmetExpectations
        LastViolation = $lastViolation
        UnmetIds = @(@($report.unmetExpectations) | Where-Object { $null -ne $_ } | ForEach-Object { [string]$_.id })
        Violations = @($report.violations)
        UnmetList = @($report.unmetExpectations)
        # Counts carried over a Clear-PassportalFakeReport not judged yet.
        CarriedViolating = 0
        CarriedUnmet = 0
    }
}

function Set-VerdictBaseline {
    # Where the next check of -Target starts counting: now.
    param($Target)
    $resolved = Resolve-FakeTarget $Target
    $script:VerdictBaselines[$resolved.BaseUrl] = Get-VerdictCount $resolved
}

function Remove-VerdictBaseline {
    param([string] $BaseUrl)
    $script:VerdictBaselines.Remove($BaseUrl)
}

function Save-VerdictBeforeReportClear {
    # Before this module clears a report (Clear-PassportalFakeReport): what the next check must
    # still judge is carried over the clear.
    param($Target)
    $base = $script:VerdictBaselines[$Target.BaseUrl]
    if ($null -eq $base) { return $null }
    $now = Get-VerdictCount $Target
    [pscustomobject]@{
        Violating = $base.CarriedViolating + [Math]::Max(0, $now.Violating - $base.Violating)
        Unmet = $base.CarriedUnmet + [Math]::Max(0, $now.Unmet - $base.Unmet)
    }
}

function Restore-VerdictAfterReportClear {
    param($Target, $Carried)
    if ($null -eq $Carried) { return }
    $base = Get-VerdictCount $Target
    $base.CarriedViolating = $Carried.Violating
    $base.CarriedUnmet = $Carried.Unmet
    $script:VerdictBaselines[$Target.BaseUrl] = $base
}

function Get-ViolationFinding {
    # What fails the check of a fake or session since its previous check: the exact counts of new
    # violating requests and new declarations never met, and one line for each the report still
    # lists (method, path, status, then each location and message; the fake never puts a token
    # or a secret in these). The check's counts become the next check's start.
    param($Target)
    $now = Get-VerdictCount $Target
    $base = $script:VerdictBaselines[$Target.BaseUrl]
    $lines = New-Object System.Collections.Generic.List[string]
    $cleared = $false
    if ($null -eq $base) {
        # Never seen by this module (a URL): everything its report counts.
        $base = [pscustomobject]@{ Since = $now.Since; Violating = 0; Unmet = 0; LastViolation = 0; UnmetIds = @(); CarriedViolating = 0; CarriedUnmet = 0 }
    } elseif ($base.Since -ne $now.Since -or $now.Violating -lt $base.Violating) {
        # The count of violating requests only grows until the report is cleared.
        $cleared = $true
        $lines.Add("the report was cleared since the previous check (DELETE /__admin/report, not by Clear-PassportalFakeReport), so what came before it cannot be counted: clear reports with Clear-PassportalFakeReport, or outside the tests")
        $base = [pscustomobject]@{ Since = $now.Since; Violating = 0; Unmet = 0; LastViolation = 0; UnmetIds = @(); CarriedViolating = $base.CarriedViolating; CarriedUnmet = $base.CarriedUnmet }
    }
    $script:VerdictBaselines[$Target.BaseUrl] = $now
    $violating = $base.CarriedViolating + [Math]::Max(0, $now.Violating - $base.Violating)
    $unmet = $base.CarriedUnmet + [Math]::Max(0, $now.Unmet - $base.Unmet)
    $listed = 0
    foreach ($record in $now.Violations) {
        if ($null -eq $record -or [long]$record.requestId -le $base.LastViolation) { continue }
        $listed++
        $status = ''
        if ($record.PSObject.Properties.Name -contains 'status' -and $null -ne $record.status) { $status = " -> $($record.status)" }
        $lines.Add("$($record.method) $($record.path)$status (request $($record.requestId))")
        foreach ($violation in @($record.violations)) {
            $lines.Add("    $($violation.location): $($violation.message)")
        }
    }
    if ($violating -gt $listed) {
        $lines.Add("$($violating - $listed) more violating request(s) the report no longer lists (its lists are bounded, or a report clear dropped them): see Get-PassportalFakeReport")
    }
    $listedUnmet = 0
    foreach ($expected in $now.UnmetList) {
        if ($null -eq $expected -or $base.UnmetIds -contains [string]$expected.id) { continue }
        $listedUnmet++
        $what = @($expected.method, $expected.path, $expected.location) | Where-Object { $_ }
        $lines.Add("expected a violation that never came: $(if ($what) { $what -join ' ' } else { 'any' }) (met $($expected.met) of $($expected.times), id $($expected.id))")
    }
    if ($unmet -gt $listedUnmet) {
        $lines.Add("$($unmet - $listedUnmet) more expected violation(s) that never came, no longer listed: see Get-PassportalFakeReport")
    }
    [pscustomobject]@{
        Violating = $violating
        Unmet = $unmet
        Failed = ($cleared -or $violating -gt 0 -or $unmet -gt 0)
        Lines = $lines.ToArray()
        BaseUrl = $Target.BaseUrl
    }
}

function Format-ViolationFinding {
    param($Finding, [string] $Because)
    $head = "Expected no Passportal contract violations at $($Finding.BaseUrl) since the previous check"
    if ($Because) { $head += ", because $Because" }
    "$head, but found $($Finding.Violating) violating request(s) and $($Finding.Unmet) expected violation(s) that never came:" + [Environment]::NewLine + ($Finding.Lines -join [Environment]::NewLine)
}
