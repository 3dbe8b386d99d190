function Add-PassportalFakeRateLimit {
    <#
    .SYNOPSIS
    Limits how many requests pass in a window, per key, token, session or instance (POST /__admin/rate-limits); returns its id.
    .PARAMETER Per
    What the limit counts for: key, token, session or instance.
    .PARAMETER Limit
    Requests allowed per window.
    .PARAMETER WindowSeconds
    The window's length in seconds.
    .PARAMETER Method
    Only requests with this HTTP method.
    .PARAMETER Path
    Only requests to this path (ending in * : this prefix).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Add-PassportalFakeRateLimit -Per key -Limit 10 -WindowSeconds 60
    #>
    [CmdletBinding(SupportsShouldProcess)]
    [OutputType([string])]
    param(
        [Parameter(Mandatory)] [ValidateSet('key', 'token', 'session', 'instance')] [string] $Per,
        [Parameter(Mandatory)] [ValidateRange(1, 1000000)] [int] $Limit,
        [Parameter(Mandatory)] [ValidateRange(1, 86400)] [int] $WindowSeconds,
        [ValidateLength(0, 32)] [string] $Method,
        [ValidateLength(0, 2048)] [string] $Path,
        [Parameter(ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake
    )
    process {
        $target = Resolve-FakeTarget $Fake
        $body = ConvertTo-Hashtable $PSBoundParameters ([ordered]@{ Per = 'per'; Limit = 'limit'; WindowSeconds = 'windowSeconds'; Method = 'method'; Path = 'path' })
        if ($PSCmdlet.ShouldProcess($target.BaseUrl, 'Add rate limit')) {
            [string](Invoke-FakeAdmin -Target $target -Method POST -Path '/rate-limits' -Body $body).id
        }
    }
}

function Get-PassportalFakeRateLimit {
    <#
    .SYNOPSIS
    The rate limits of a fake or session (GET /__admin/rate-limits).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Get-PassportalFakeRateLimit
    #>
    [CmdletBinding()]
    [OutputType([System.Management.Automation.PSObject])]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process {
        Get-FakeItem -Fake $Fake -Path '/rate-limits' -Property rateLimits -Cmdlet $PSCmdlet
    }
}

function Clear-PassportalFakeRateLimit {
    <#
    .SYNOPSIS
    Removes every rate limit of a fake or session (DELETE /__admin/rate-limits).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Clear-PassportalFakeRateLimit
    #>
    [CmdletBinding(SupportsShouldProcess)]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process {
        Remove-FakeItem -Cmdlet $PSCmdlet -Fake $Fake -Path '/rate-limits' -What 'Clear rate limits'
    }
}

function Remove-PassportalFakeRateLimit {
    <#
    .SYNOPSIS
    Removes one rate limit (DELETE /__admin/rate-limits/{id}).
    .PARAMETER Id
    The rate limit's id (piped from Get-PassportalFakeRateLimit, or Add-PassportalFakeRateLimit's answer).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last, or the one a piped limit came from.
    .EXAMPLE
    $session | Get-PassportalFakeRateLimit | Remove-PassportalFakeRateLimit
    #>
    [CmdletBinding(SupportsShouldProcess)]
    param(
        [Parameter(Mandatory, Position = 0, ValueFromPipelineByPropertyName)] [ValidateNotNullOrEmpty()] [string] $Id,
        [Parameter(ValueFromPipelineByPropertyName)] [Alias('Session', 'Url', 'PassportalFake')] [PassportalFakeTarget] $Fake
    )
    process {
        Remove-FakeItem -Cmdlet $PSCmdlet -Fake $Fake -Path '/rate-limits' -What 'rate limit' -Id $Id
    }
}
