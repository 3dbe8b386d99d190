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
