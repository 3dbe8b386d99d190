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
