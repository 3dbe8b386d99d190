function Get-PassportalFakeHealth {
    <#
    .SYNOPSIS
    Asks a fake whether it is up (GET /__admin/health).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    Get-PassportalFakeHealth -Url http://127.0.0.1:4010
    #>
    [CmdletBinding()]
    [OutputType([System.Management.Automation.PSObject])]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process { Invoke-FakeAdmin -Target (Resolve-FakeTarget $Fake) -Method GET -Path '/health' -Cmdlet $PSCmdlet }
}

function Invoke-PassportalFakeDrain {
    <#
    .SYNOPSIS
    Drains a fleet replica (POST /__admin/fleet/drain): it creates no more sessions (503 replicaDraining, so a balancer tries another replica) and keeps serving its own.
    .DESCRIPTION
    Asked at the replica's own root URL (never a session's, never the balancer's). A fake started without a fleet answers 409 notInFleet.
    .PARAMETER Fake
    A fake (Start-PassportalFake) or the base URL of one replica; default: the fake started last.
    .EXAMPLE
    Invoke-PassportalFakeDrain -Url http://fake-2.fake:4010
    #>
    [CmdletBinding(SupportsShouldProcess)]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process {
        $target = Resolve-FakeTarget $Fake
        if ($PSCmdlet.ShouldProcess($target.BaseUrl, 'Drain')) {
            Invoke-FakeAdmin -Target $target -Method POST -Path '/fleet/drain'
        }
    }
}

function Reset-PassportalFake {
    <#
    .SYNOPSIS
    Puts a fake or session back to its fixtures: documents, tokens, journal, faults, clock (POST /__admin/reset).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    BeforeEach { $session | Reset-PassportalFake }
    #>
    [CmdletBinding(SupportsShouldProcess)]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process {
        $target = Resolve-FakeTarget $Fake
        if ($PSCmdlet.ShouldProcess($target.BaseUrl, 'Reset')) {
            Invoke-FakeAdmin -Target $target -Method POST -Path '/reset' | Out-Null
        }
    }
}

function Import-PassportalFakeFixture {
    <#
    .SYNOPSIS
    Replaces a fake's or session's fixtures (PUT /__admin/fixtures).
    .PARAMETER Path
    A fixture set: a JSON file, or a folder of per-kind files (docs/fixtures.md).
    .PARAMETER FixtureSet
    A fixture set as an object or hashtable (written as JSON with depth 100).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Import-PassportalFakeFixture -Path ./fixtures/two-clients.json
    #>
    [CmdletBinding(DefaultParameterSetName = 'Path')]
    param(
        [Parameter(Mandatory, ParameterSetName = 'Path')] [string] $Path,
        [Parameter(Mandatory, ParameterSetName = 'Object')] $FixtureSet,
        [Parameter(ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake
    )
    process {
        $target = Resolve-FakeTarget $Fake
        if ($PSCmdlet.ParameterSetName -eq 'Path') {
            $body = Read-FixtureSetJson $Path
        } else {
            $body = ConvertTo-FakeJson $FixtureSet
        }
        Invoke-FakeAdmin -Target $target -Method PUT -Path '/fixtures' -Body $body
    }
}

function Get-PassportalFakeState {
    <#
    .SYNOPSIS
    A fake's or session's state: its API keys, counts, clock (GET /__admin/state).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    ($fake | Get-PassportalFakeState).keys
    #>
    [CmdletBinding()]
    [OutputType([System.Management.Automation.PSObject])]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process { Invoke-FakeAdmin -Target (Resolve-FakeTarget $Fake) -Method GET -Path '/state' -Cmdlet $PSCmdlet }
}

function Get-PassportalFakeClock {
    <#
    .SYNOPSIS
    The fake's clock: now (Unix seconds) and its offset from the real clock (GET /__admin/clock).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    (Get-PassportalFakeClock -Session $session).now
    #>
    [CmdletBinding()]
    [OutputType([System.Management.Automation.PSObject])]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process { Invoke-FakeAdmin -Target (Resolve-FakeTarget $Fake) -Method GET -Path '/clock' -Cmdlet $PSCmdlet }
}

function Set-PassportalFakeClock {
    <#
    .SYNOPSIS
    Moves the fake's clock (POST /__admin/clock): tokens expire by it.
    .PARAMETER AdvanceSeconds
    Seconds to move the clock by (negative goes back).
    .PARAMETER Now
    The time to set: a DateTime or Unix seconds.
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Set-PassportalFakeClock -AdvanceSeconds 3600   # every token issued so far has expired
    #>
    [CmdletBinding(SupportsShouldProcess, DefaultParameterSetName = 'Advance')]
    param(
        [Parameter(Mandatory, ParameterSetName = 'Advance')] [long] $AdvanceSeconds,
        [Parameter(Mandatory, ParameterSetName = 'Now')] $Now,
        [Parameter(ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake
    )
    process {
        $target = Resolve-FakeTarget $Fake
        if ($PSCmdlet.ParameterSetName -eq 'Advance') {
            $body = @{ advanceSeconds = $AdvanceSeconds }
        } else {
            if ($Now -is [DateTime] -or $Now -is [DateTimeOffset]) {
                $Now = ([DateTimeOffset]$Now).ToUnixTimeSeconds()
            }
            $body = @{ now = [long]$Now }
        }
        if ($PSCmdlet.ShouldProcess($target.BaseUrl, 'Set clock')) {
            Invoke-FakeAdmin -Target $target -Method POST -Path '/clock' -Body $body
        }
    }
}

function Revoke-PassportalFakeToken {
    <#
    .SYNOPSIS
    Ends every access token issued so far (POST /__admin/tokens/revoke); returns how many were still usable.
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Revoke-PassportalFakeToken
    #>
    [CmdletBinding(SupportsShouldProcess)]
    [OutputType([int])]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process {
        $target = Resolve-FakeTarget $Fake
        if ($PSCmdlet.ShouldProcess($target.BaseUrl, 'Revoke tokens')) {
            [int](Invoke-FakeAdmin -Target $target -Method POST -Path '/tokens/revoke').revoked
        }
    }
}

function Get-PassportalFakeSetting {
    <#
    .SYNOPSIS
    The run-time settings of a fake or session (GET /__admin/settings).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    (Get-PassportalFakeSetting).tokenTtlSeconds
    #>
    [CmdletBinding()]
    [OutputType([System.Management.Automation.PSObject])]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process { Invoke-FakeAdmin -Target (Resolve-FakeTarget $Fake) -Method GET -Path '/settings' -Cmdlet $PSCmdlet }
}

function Set-PassportalFakeSetting {
    <#
    .SYNOPSIS
    Changes run-time settings of a fake or session (PUT /__admin/settings); returns the settings after the change.
    .PARAMETER Setting
    The settings to change, by name (docs/options.md), e.g. @{ tokenTtlSeconds = 60 }.
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Set-PassportalFakeSetting -Setting @{ hashEncoding = 'base64' }
    #>
    [CmdletBinding(SupportsShouldProcess)]
    param(
        [Parameter(Mandatory, Position = 0)] [hashtable] $Setting,
        [Parameter(ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake
    )
    process {
        Assert-FakeField -Cmdlet $PSCmdlet -Operation updateSettings -Fields $Setting
        $target = Resolve-FakeTarget $Fake
        if ($PSCmdlet.ShouldProcess($target.BaseUrl, 'Change settings')) {
            Invoke-FakeAdmin -Target $target -Method PUT -Path '/settings' -Body $Setting
        }
    }
}
