function Get-ViolationFinding {
    # What makes a fake or session fail the no-violation check, one line each: every request with
    # violations (method, path, location, message; the fake never puts a token or a secret in
    # these) and every expected violation that never came. Fakes without expected violations
    # (404) have none to miss.
    param($Target)
    $lines = New-Object System.Collections.Generic.List[string]
    $records = @((Invoke-FakeAdmin -Target $Target -Method GET -Path '/violations').violations)
    foreach ($record in $records) {
        if ($null -eq $record) { continue }
        $status = ''
        if ($record.PSObject.Properties.Name -contains 'status' -and $null -ne $record.status) { $status = " -> $($record.status)" }
        $lines.Add("$($record.method) $($record.path)$status (request $($record.requestId))")
        foreach ($violation in @($record.violations)) {
            $lines.Add("    $($violation.location): $($violation.message)")
        }
    }
    $declared = Invoke-FakeAdmin -Target $Target -Method GET -Path '/expected-violations' -AllowNotFound
    if ($null -ne $declared) {
        foreach ($expected in @($declared.expectedViolations)) {
            if ($null -eq $expected) { continue }
            if ([int]$expected.met -lt [int]$expected.times) {
                $what = @($expected.method, $expected.path, $expected.location) | Where-Object { $_ } 
                $lines.Add("expected a violation that never came: $(if ($what) { $what -join ' ' } else { 'any' }) (met $($expected.met) of $($expected.times), id $($expected.id))")
            }
        }
    }
    [pscustomobject]@{ Count = $records.Count; Lines = $lines.ToArray(); BaseUrl = $Target.BaseUrl }
}

function Format-ViolationFinding {
    param($Finding, [string] $Because)
    $head = "Expected no Passportal contract violations at $($Finding.BaseUrl)"
    if ($Because) { $head += ", because $Because" }
    "$head, but found:" + [Environment]::NewLine + ($Finding.Lines -join [Environment]::NewLine)
}
