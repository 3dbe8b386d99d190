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
    # Where an admin call goes: a fake, a session or a URL, resolved (Resolve-FakeTarget).
    [string] $BaseUrl
    [string] $AdminUrl
    [string] $RootUrl
    [string] $AdminToken
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
