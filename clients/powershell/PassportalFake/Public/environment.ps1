function Get-PassportalFakeEnvironment {
    <#
    .SYNOPSIS
    The environment a client's process needs to reach a session (or the fake) at the vendor's host names and still reach its other services: SSL_CERT_FILE, HTTPS_PROXY and NO_PROXY.
    .DESCRIPTION
    Answers an ordered hashtable: SSL_CERT_FILE is the fake's CA bundle (this machine's trusted
    CAs followed by the fake's, Start-PassportalFake -Https), so the client keeps trusting its
    other HTTPS services; HTTPS_PROXY is the session's ProxyUrl, which routes the vendor's hosts
    to the session; NO_PROXY is loopback and the hosts of -NoProxy, which the client then reaches
    directly (the fake's proxy answers 403 for any host it does not serve). .NET reads these once
    per process: set them before the client's process starts (a Start-Job, a CI step).
    .PARAMETER NoProxy
    The hosts of the client's other services (host names, addresses, or .domain suffixes).
    .PARAMETER Fake
    A session (New-PassportalFakeSession) or a fake (Start-PassportalFake, started with -Https); default: the fake started last.
    .EXAMPLE
    $environment = $session | Get-PassportalFakeEnvironment -NoProxy hudu.example.com
    foreach ($name in $environment.Keys) { Set-Item "env:$name" $environment[$name] }
    Start-Job { ./Sync-HuduFromPassportal.ps1 } | Receive-Job -Wait -AutoRemoveJob
    #>
    [CmdletBinding()]
    [OutputType([System.Collections.Specialized.OrderedDictionary])]
    param(
        [string[]] $NoProxy = @(),
        [Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake
    )
    process {
        $target = Resolve-FakeTarget $Fake
        $bundle = Get-FakeCaBundlePath $target
        if (-not $bundle) {
            throw "No CA bundle for $($target.RootUrl): start the fake with Start-PassportalFake -Https (its CaBundlePath), from this PowerShell session."
        }
        $proxy = $null
        $origin = $target.Origin
        if ($null -ne $origin -and $origin.PSObject.Properties.Name -contains 'ProxyUrl') { $proxy = [string]$origin.ProxyUrl }
        if (-not $proxy) {
            $user = 'root'
            $index = $target.BaseUrl.IndexOf('/sessions/')
            if ($index -ge 0) { $user = [uri]::EscapeDataString($target.BaseUrl.Substring($index + 10)) }
            $proxy = "http://${user}:x@$(([uri]$target.RootUrl).Authority)"
        }
        $hosts = New-Object System.Collections.Generic.List[string]
        foreach ($name in @('localhost', '127.0.0.1', '::1') + @($NoProxy | ForEach-Object { ([string]$_).Trim() } | Where-Object { $_ })) {
            if (-not $hosts.Contains($name)) { $hosts.Add($name) }
        }
        [ordered]@{
            SSL_CERT_FILE = $bundle
            HTTPS_PROXY = $proxy
            NO_PROXY = ($hosts.ToArray() -join ',')
        }
    }
}

function Get-FakeCaBundlePath {
    # The CA bundle of the fake behind -Target (the fake or session it was made from, carrying
    # CaBundlePath, else the fake this module started at its root URL), or $null.
    param([PassportalFakeTarget] $Target)
    $origin = $Target.Origin
    if ($null -ne $origin -and $origin.PSObject.Properties.Name -contains 'CaBundlePath' -and $origin.CaBundlePath) {
        return [string]$origin.CaBundlePath
    }
    foreach ($started in $script:StartedFakes) {
        if ($started.RootUrl -eq $Target.RootUrl -and $started.CaBundlePath) { return $started.CaBundlePath }
    }
    $null
}
