function Add-PassportalFakeFault {
    <#
    .SYNOPSIS
    Makes matching requests fail: a status with a body and headers, a delay, or a dropped connection (POST /__admin/faults); returns the fault's id.
    .PARAMETER Method
    Only requests with this HTTP method.
    .PARAMETER Path
    Only requests to this path, relative to the fake or session (ending in * : this prefix).
    .PARAMETER Status
    Answer with this status (200-599).
    .PARAMETER Body
    The body sent with -Status (an object or hashtable, written as JSON).
    .PARAMETER Headers
    Headers sent with -Status, e.g. @{ 'Retry-After' = '1' }.
    .PARAMETER DelayMs
    Wait this long before answering.
    .PARAMETER Times
    Apply to this many matching requests (default: until removed).
    .PARAMETER Drop
    Close the connection without answering.
    .PARAMETER Probability
    Apply to a matching request with this chance (0 to 1).
    .PARAMETER Seed
    Seed of -Probability's draws, for a repeatable run.
    .PARAMETER After
    Let the first N matching requests through.
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Add-PassportalFakeFault -Method GET -Path '/api/v2/documents' -Status 503 -Times 1
    #>
    [CmdletBinding(SupportsShouldProcess)]
    [OutputType([string])]
    param(
        [ValidateLength(0, 32)] [string] $Method,
        [ValidateLength(0, 2048)] [string] $Path,
        [ValidateRange(200, 599)] [int] $Status,
        $Body,
        [hashtable] $Headers,
        [ValidateRange(0, 600000)] [int] $DelayMs,
        [ValidateRange(1, [int]::MaxValue)] [int] $Times,
        [switch] $Drop,
        [ValidateRange(0.0, 1.0)] [double] $Probability,
        [ValidateRange(0, 4294967295)] [long] $Seed,
        [ValidateRange(0, [int]::MaxValue)] [int] $After,
        [Parameter(ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake
    )
    process {
        $target = Resolve-FakeTarget $Fake
        $fault = ConvertTo-Hashtable $PSBoundParameters ([ordered]@{
                Method = 'method'; Path = 'path'; Status = 'status'; Body = 'body'; Headers = 'headers'; DelayMs = 'delayMs'
                Times = 'times'; Drop = 'drop'; Probability = 'probability'; Seed = 'seed'; After = 'after'
            })
        if ($PSCmdlet.ShouldProcess($target.BaseUrl, 'Add fault')) {
            [string](Invoke-FakeAdmin -Target $target -Method POST -Path '/faults' -Body $fault).id
        }
    }
}

function Get-PassportalFakeFault {
    <#
    .SYNOPSIS
    The faults of a fake or session, with how often each applied (GET /__admin/faults).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Get-PassportalFakeFault | Remove-PassportalFakeFault
    #>
    [CmdletBinding()]
    [OutputType([System.Management.Automation.PSObject])]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process {
        Get-FakeItem -Fake $Fake -Path '/faults' -Property faults -Cmdlet $PSCmdlet
    }
}

function Clear-PassportalFakeFault {
    <#
    .SYNOPSIS
    Removes every fault of a fake or session (DELETE /__admin/faults).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Clear-PassportalFakeFault
    #>
    [CmdletBinding(SupportsShouldProcess)]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process {
        Remove-FakeItem -Cmdlet $PSCmdlet -Fake $Fake -Path '/faults' -What 'Clear faults'
    }
}

function Remove-PassportalFakeFault {
    <#
    .SYNOPSIS
    Removes one fault (DELETE /__admin/faults/{id}).
    .PARAMETER Id
    The fault's id (Add-PassportalFakeFault's answer, or piped from Get-PassportalFakeFault).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last, or the one a piped fault came from.
    .EXAMPLE
    Remove-PassportalFakeFault -Session $session -Id $faultId
    #>
    [CmdletBinding(SupportsShouldProcess)]
    param(
        [Parameter(Mandatory, Position = 0, ValueFromPipelineByPropertyName)] [ValidateNotNullOrEmpty()] [string] $Id,
        [Parameter(ValueFromPipelineByPropertyName)] [Alias('Session', 'Url', 'PassportalFake')] [PassportalFakeTarget] $Fake
    )
    process {
        Remove-FakeItem -Cmdlet $PSCmdlet -Fake $Fake -Path '/faults' -What 'fault' -Id $Id
    }
}
