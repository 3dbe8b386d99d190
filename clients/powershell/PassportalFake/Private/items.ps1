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
