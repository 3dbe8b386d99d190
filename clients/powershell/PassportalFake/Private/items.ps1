function Add-FakeReference {
    # Marks listed items (faults, expectations, rate limits) with the fake they came from, so a
    # Remove-* command they are piped to reaches the same fake or session.
    param($Items, $Fake)
    foreach ($item in @($Items)) {
        if ($null -eq $item) { continue }
        Add-Member -InputObject $item -NotePropertyName PassportalFake -NotePropertyValue $Fake -Force
        $item
    }
}

function Read-FixtureSetJson {
    # A fixture set as JSON text: a JSON file as it is, or a folder of per-kind files
    # (organizations.json, clients.json, templates.json, documents.json, apiKeys.json) joined.
    param([string] $Path)
    if (Test-Path -LiteralPath $Path -PathType Leaf) {
        return [System.IO.File]::ReadAllText((Resolve-Path -LiteralPath $Path).Path)
    }
    if (-not (Test-Path -LiteralPath $Path -PathType Container)) {
        throw "Fixture set not found: $Path (a JSON file, or a folder of per-kind files)."
    }
    $parts = @()
    foreach ($kind in @('organizations', 'clients', 'templates', 'documents', 'apiKeys')) {
        $file = Join-Path $Path "$kind.json"
        if (Test-Path -LiteralPath $file -PathType Leaf) {
            $parts += ('"' + $kind + '":' + [System.IO.File]::ReadAllText((Resolve-Path -LiteralPath $file).Path))
        }
    }
    '{' + ($parts -join ',') + '}'
}

function Get-FakeItem {
    # The items of one of the admin API's collections (GET /__admin/faults, ...: -Path), read from
    # the answer's -Property and marked with the fake they came from.
    param($Fake, [string] $Path, [string] $Property, $Cmdlet)
    $target = Resolve-FakeTarget $Fake
    Add-FakeReference (Invoke-FakeAdmin -Target $target -Method GET -Path $Path -Cmdlet $Cmdlet).$Property $target
}

function Remove-FakeItem {
    # DELETE of one item of a collection (-Id) or of the whole collection (no -Id), asked of the
    # calling command's -WhatIf/-Confirm (-Cmdlet, its $PSCmdlet) first; an unknown id is that
    # command's non-terminating error. -What names the item
    # ('fault') or, without -Id, the action ('Clear faults').
    param($Cmdlet, $Fake, [string] $Path, [string] $What, [string] $Id)
    $target = Resolve-FakeTarget $Fake
    if ($Id) {
        if ($Cmdlet.ShouldProcess("$($target.BaseUrl) $What $Id", 'Remove')) {
            Invoke-FakeAdmin -Target $target -Method DELETE -Path ($Path + '/' + [uri]::EscapeDataString($Id)) -Cmdlet $Cmdlet | Out-Null
        }
    } elseif ($Cmdlet.ShouldProcess($target.BaseUrl, $What)) {
        Invoke-FakeAdmin -Target $target -Method DELETE -Path $Path -Cmdlet $Cmdlet | Out-Null
    }
}

function Read-FakeJournal {
    # The journal entries matching -Query (GET /__admin/requests), read page by page: every one,
    # or at most -Limit with a warning naming how many more match and how to read them. Oldest
    # first, each page starts after the last id read, so entries the journal drops meanwhile
    # never shift a page; newest first, by offset.
    param($Target, [System.Collections.IDictionary] $Query, [int] $Limit, [int] $Offset)
    # Pages small enough for Windows PowerShell 5.1's ConvertFrom-Json (2 MB) at 4 KiB a body.
    $pageSize = 200
    $descending = $Query['order'] -eq 'desc'
    $skip = $Offset
    $returned = 0
    $total = $null
    while ($true) {
        $want = $pageSize
        if ($Limit) { $want = [Math]::Min($pageSize, $Limit - $returned) }
        $Query['limit'] = $want
        $Query['offset'] = $skip
        $answer = Invoke-FakeAdmin -Target $Target -Method GET -Path ('/requests' + (Get-QueryString $Query))
        if ($null -eq $total) { $total = [long]$answer.count }
        $entries = @($answer.requests | Where-Object { $null -ne $_ })
        foreach ($entry in $entries) { $entry }
        $returned += $entries.Count
        if ($entries.Count -lt $want) { break }
        if ($Limit -and $returned -ge $Limit) {
            $more = $total - $Offset - $returned
            if ($more -gt 0) {
                $next = "-Offset $($Offset + $returned)"
                if (-not $descending) { $next = "-Since $($entries[-1].id)" }
                Write-Warning "Get-PassportalFakeRequest returned $returned of $($total - $Offset) matching journal entries (-Limit $Limit): $more more, which $next reads."
            }
            break
        }
        if ($descending) {
            $skip += $entries.Count
        } else {
            $Query['since'] = [long]$entries[-1].id
            $skip = 0
        }
    }
}
