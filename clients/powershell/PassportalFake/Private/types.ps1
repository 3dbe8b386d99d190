# The objects the module hands out. Each shows what a person needs in default, table and list
# output (PassportalFake.Format.ps1xml) and, as a string, its URL: never the admin token or a key's
# secret, which stay readable as properties ($fake.Secret, $session.AdminToken).

class PassportalFakeKey {
    # One API key: its ID, organization and secret.
    [string] $KeyId
    [string] $Secret
    [object] $OrganizationId
    [string] ToString() { return $this.KeyId }
}

class PassportalFakeServer {
    # A fake Start-PassportalFake started: its URLs, its first API key, and what stops it.
    [string] $BaseUrl
    [string] $AdminUrl
    [string] $RootUrl
    [string] $ProxyUrl
    [string] $HttpsUrl
    [string] $KeyId
    [string] $Secret
    [string] $CaCertPath
    [string] $CaBundlePath
    [string] $AdminToken
    [string] $Mode
    # Which fake was started: this repository's build, the npm package (where found) or the image.
    [string] $Source
    [System.Diagnostics.Process] $Process
    [string] $ContainerId
    [string] $Engine
    [string] $LogDirectory
    # With -Image: the PowerShell that removes the container once this one is gone, however it ends.
    hidden [System.Diagnostics.Process] $Watchdog
    # The fake's output as it is copied to LogDirectory (the copies and their files).
    hidden [object[]] $Outputs = @()
    [string] ToString() { return $this.BaseUrl }
}

class PassportalFakeSession {
    # A session New-PassportalFakeSession created.
    [string] $Id
    [string] $BaseUrl
    [string] $AdminUrl
    [string] $RootUrl
    [string] $ProxyUrl
    [string] $KeyId
    [string] $Secret
    [PassportalFakeKey[]] $Keys = @()
    [string] $Run
    [string] $CaBundlePath
    [string] $AdminToken
    [string] ToString() { return $this.BaseUrl }
}

class PassportalFakeTarget {
    # The type of every command's -Fake (-Session, -Url): where its admin calls go. PowerShell
    # converts what is passed through the constructors, so -Fake takes a fake
    # (Start-PassportalFake), a session (New-PassportalFakeSession), a base URL (the root's or a
    # session's, with or without /__admin; a string or a [uri]), or any object with a BaseUrl
    # property, and help names this type. Origin is what it was made from (its KeyId, Secret,
    # ProxyUrl, CaBundlePath); for a URL, none.
    [string] $BaseUrl
    [string] $AdminUrl
    [string] $RootUrl
    [string] $AdminToken
    hidden [object] $Origin

    PassportalFakeTarget() { }

    PassportalFakeTarget([string] $Url) { $this.SetUrl($Url) }

    PassportalFakeTarget([object] $Value) {
        $problem = [PassportalFakeTarget]::Problem($Value)
        if ($problem) { throw [System.ArgumentException]::new($problem) }
        if ($Value -is [string] -or $Value -is [uri]) {
            $this.SetUrl([string]$Value)
            return
        }
        $names = $Value.PSObject.Properties.Name
        $this.BaseUrl = ([string]$Value.BaseUrl).TrimEnd('/')
        $this.AdminUrl = "$($this.BaseUrl)/__admin"
        if ($names -contains 'AdminUrl' -and $Value.AdminUrl) { $this.AdminUrl = ([string]$Value.AdminUrl).TrimEnd('/') }
        $this.RootUrl = $this.BaseUrl
        if ($names -contains 'RootUrl' -and $Value.RootUrl) { $this.RootUrl = ([string]$Value.RootUrl).TrimEnd('/') }
        if ($names -contains 'AdminToken') { $this.AdminToken = $Value.AdminToken }
        # A target made by an earlier import of the module (Import-Module -Force) keeps its origin.
        $this.Origin = $Value
        if ($Value.GetType().FullName -eq 'PassportalFakeTarget') { $this.Origin = $Value.Origin }
    }

    static [string] Problem([object] $Value) {
        # Why -Value names no fake, session or URL; $null when it does.
        if ($null -eq $Value) { return 'No fake given: pass -Fake (from Start-PassportalFake), -Session (from New-PassportalFakeSession) or -Url, or start one with Start-PassportalFake first.' }
        if ($Value -is [string] -or $Value -is [uri]) { return $null }
        if ($Value.PSObject.Properties.Name -notcontains 'BaseUrl') {
            return "Not a fake, a session or a URL: an object with a BaseUrl property is expected (got $($Value.GetType().FullName))."
        }
        return $null
    }

    hidden [void] SetUrl([string] $Url) {
        $base = $Url.TrimEnd('/')
        if ($base.EndsWith('/__admin')) { $base = $base.Substring(0, $base.Length - 8) }
        $this.BaseUrl = $base
        $this.AdminUrl = "$base/__admin"
        $this.RootUrl = $base
        $index = $base.IndexOf('/sessions/')
        if ($index -ge 0) { $this.RootUrl = $base.Substring(0, $index) }
    }

    [string] ToString() { return $this.BaseUrl }
}

function ConvertTo-FakeKey {
    # A key of the admin API's answers ({keyId, secret, organizationId}) as a PassportalFakeKey.
    param($Key)
    $typed = [PassportalFakeKey]::new()
    $typed.KeyId = [string]$Key.keyId
    $typed.Secret = [string]$Key.secret
    if ($Key.PSObject.Properties.Name -contains 'organizationId') { $typed.OrganizationId = $Key.organizationId }
    $typed
}

function Add-FakeTypeName {
    # Also names an object by the module's dotted type name (PassportalFake.Fake, ...), as before.
    param($InputObject, [string] $Name)
    $InputObject.PSObject.TypeNames.Insert(0, $Name)
    $InputObject
}
