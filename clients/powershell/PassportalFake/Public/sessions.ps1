function New-PassportalFakeSession {
    <#
    .SYNOPSIS
    A session: an isolated fake inside the running one, with its own documents, tokens, journal, faults and clock (POST /__admin/sessions).
    .DESCRIPTION
    Returns Id, BaseUrl (the API for your client), AdminUrl, KeyId and Secret (the first API key
    of its fixtures, or of its own keys with -OwnKeys), ProxyUrl (the fake's proxy with this
    session as the proxy user: HTTPS_PROXY, or Invoke-RestMethod -Proxy with -ProxyCredential),
    CaBundlePath (the fake's, when it serves HTTPS) and Run. Pipe it to every other command of
    this module. One per Describe keeps suites apart. Its default, table and list output never
    show the admin token or a key's secret ($session.Secret reads it).
    .PARAMETER OwnKeys
    API keys of its own (random IDs and secrets): requests at the root URL that use them are served by this session.
    .PARAMETER Run
    Label the session with a run (1-128 characters of letters, digits and . _ : @ / -; empty: none); Get-PassportalFakeReport -Run gives one report for all sessions of the run.
    .PARAMETER Fixtures
    A fixture set for this session: a JSON file or a folder of per-kind files; default: the fake's.
    .PARAMETER NoExpiry
    Never remove the session for being idle.
    .PARAMETER Fake
    The fake (Start-PassportalFake) or its URL; default: the fake started last.
    .EXAMPLE
    BeforeAll { $session = New-PassportalFakeSession -Run $env:RUN_LABEL }
    AfterAll { $session | Remove-PassportalFakeSession }
    #>
    [CmdletBinding(SupportsShouldProcess)]
    [OutputType('PassportalFake.Session')]
    param(
        [switch] $OwnKeys,
        [string] $Run,
        [string] $Fixtures,
        [switch] $NoExpiry,
        [Parameter(ValueFromPipeline)] [Alias('Url')] [PassportalFakeTarget] $Fake
    )
    process {
        $target = Resolve-FakeTarget $Fake
        if ($Run -and $Run -notmatch '^[A-Za-z0-9._:@/-]{1,128}$') { throw "Run label '$Run' is not 1-128 characters of letters, digits and . _ : @ / -." }
        $body = [ordered]@{}
        if ($OwnKeys) { $body['keys'] = 'own' }
        if ($Run) { $body['run'] = $Run }
        if ($NoExpiry) { $body['expires'] = $false }
        if ($Fixtures) { $body['fixtures'] = ConvertFrom-Json -InputObject (Read-FixtureSetJson $Fixtures) }
        if (-not $PSCmdlet.ShouldProcess($target.RootUrl, 'Create session')) { return }
        $created = Invoke-FakeAdmin -Target $target -Method POST -Path '/sessions' -Body $body -Root
        $rootUri = [uri]$target.RootUrl
        $session = Add-FakeTypeName ([PassportalFakeSession]::new()) 'PassportalFake.Session'
        $session.Id = [string]$created.id
        $session.BaseUrl = ([string]$created.baseUrl).TrimEnd('/')
        $session.AdminUrl = $session.BaseUrl + '/__admin'
        $session.RootUrl = $target.RootUrl
        $session.ProxyUrl = "http://$([uri]::EscapeDataString([string]$created.id)):x@$($rootUri.Authority)"
        $session.Run = $Run
        $session.AdminToken = $target.AdminToken
        $session.CaBundlePath = Get-FakeCaBundlePath $target
        if ($created.PSObject.Properties.Name -contains 'keys' -and @($created.keys).Count -gt 0) {
            $session.Keys = @(@($created.keys) | ForEach-Object { ConvertTo-FakeKey $_ })
        } else {
            $key = Get-FakeDefaultKey $session
            if ($key) { $session.Keys = @(ConvertTo-FakeKey $key) }
        }
        if (@($session.Keys).Count -gt 0) {
            $session.KeyId = $session.Keys[0].KeyId
            $session.Secret = $session.Keys[0].Secret
        }
        Set-VerdictBaseline $session
        $session
    }
}

function Get-PassportalFakeSession {
    <#
    .SYNOPSIS
    The live sessions of a fake, with their runs, never their secrets (GET /__admin/sessions).
    .PARAMETER Partial
    In a fleet, list the sessions of the replicas that answer when one does not (instead of an error naming it).
    .PARAMETER Fake
    The fake (Start-PassportalFake) or its URL; default: the fake started last.
    .EXAMPLE
    Get-PassportalFakeSession | Where-Object run -eq 'nightly'
    #>
    [CmdletBinding()]
    [OutputType('PassportalFake.SessionInfo')]
    param(
        [switch] $Partial,
        [Parameter(Position = 0, ValueFromPipeline)] [Alias('Url')] [PassportalFakeTarget] $Fake
    )
    process {
        $target = Resolve-FakeTarget $Fake
        $query = ''
        if ($Partial) { $query = '?partial=true' }
        foreach ($info in @((Invoke-FakeAdmin -Target $target -Method GET -Path "/sessions$query" -Root).sessions)) {
            if ($null -eq $info) { continue }
            Add-Member -InputObject $info -NotePropertyName RootUrl -NotePropertyValue $target.RootUrl -Force
            Add-Member -InputObject $info -NotePropertyName AdminToken -NotePropertyValue $target.AdminToken -Force
            # As a string, its URL (never the admin token it carries for the other commands).
            Add-Member -InputObject $info -MemberType ScriptMethod -Name ToString -Value { [string]$this.baseUrl } -Force
            Add-FakeTypeName $info 'PassportalFake.SessionInfo'
        }
    }
}

function Remove-PassportalFakeSession {
    <#
    .SYNOPSIS
    Deletes a session (DELETE /__admin/sessions/{id}); its share of its run's report stays.
    .PARAMETER Session
    The session (New-PassportalFakeSession or Get-PassportalFakeSession); pipe it.
    .PARAMETER Id
    The session's id, with -Fake.
    .PARAMETER Fake
    The fake the session belongs to (with -Id); default: the fake started last.
    .EXAMPLE
    AfterAll { $session | Remove-PassportalFakeSession }
    #>
    [CmdletBinding(SupportsShouldProcess, DefaultParameterSetName = 'Session')]
    param(
        [Parameter(Mandatory, Position = 0, ValueFromPipeline, ParameterSetName = 'Session')] [psobject] $Session,
        [Parameter(Mandatory, ParameterSetName = 'Id')] [ValidateNotNullOrEmpty()] [string] $Id,
        [Parameter(ParameterSetName = 'Id')] [Alias('Url')] [PassportalFakeTarget] $Fake
    )
    process {
        if ($PSCmdlet.ParameterSetName -eq 'Session') {
            $target = Resolve-FakeTarget $Session
            $Id = [string]$Session.id
        } else {
            $target = Resolve-FakeTarget $Fake
        }
        if ($PSCmdlet.ShouldProcess("$($target.RootUrl) session $Id", 'Remove')) {
            Invoke-FakeAdmin -Target $target -Method DELETE -Path ('/sessions/' + [uri]::EscapeDataString($Id)) -Root -Cmdlet $PSCmdlet | Out-Null
            Remove-VerdictBaseline "$($target.RootUrl)/sessions/$Id"
        }
    }
}
