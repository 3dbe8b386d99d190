function Add-PassportalFakeExpectedViolation {
    <#
    .SYNOPSIS
    Declares a violation a test provokes on purpose (POST /__admin/expected-violations); returns the declaration's id.
    .DESCRIPTION
    A violation that matches a declaration is expected: it stays in the journal marked expected,
    and is left out of Get-PassportalFakeViolation, Should -HaveNoPassportalViolation and the
    report's gate. A declaration that is not met by the time the test checks fails the check.
    .PARAMETER Method
    The request's HTTP method.
    .PARAMETER Path
    The request's path, relative to the fake or session (ending in * : this prefix).
    .PARAMETER Location
    The violation's location, e.g. body/0/templateUid or query.pageNum.
    .PARAMETER Times
    How many matching violations are expected (default 1).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Add-PassportalFakeExpectedViolation -Method GET -Path /api/v2/documents -Location query.pageNum
    #>
    [CmdletBinding(SupportsShouldProcess)]
    [OutputType([string])]
    param(
        [ValidateLength(0, 32)] [string] $Method,
        [ValidateLength(0, 2048)] [string] $Path,
        [ValidateLength(1, 1024)] [string] $Location,
        [ValidateRange(1, 1000000)] [int] $Times,
        [Parameter(ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake
    )
    process {
        $target = Resolve-FakeTarget $Fake
        $body = ConvertTo-Hashtable $PSBoundParameters ([ordered]@{ Method = 'method'; Path = 'path'; Location = 'location'; Times = 'times' })
        if ($PSCmdlet.ShouldProcess($target.BaseUrl, 'Declare an expected violation')) {
            [string](Invoke-FakeAdmin -Target $target -Method POST -Path '/expected-violations' -Body $body).id
        }
    }
}

function Get-PassportalFakeExpectedViolation {
    <#
    .SYNOPSIS
    The declared expected violations, each with how many times it was met (GET /__admin/expected-violations).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Get-PassportalFakeExpectedViolation | Where-Object { $_.met -lt $_.times }
    #>
    [CmdletBinding()]
    [OutputType([System.Management.Automation.PSObject])]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process {
        Get-FakeItem -Fake $Fake -Path '/expected-violations' -Property expectedViolations -Cmdlet $PSCmdlet
    }
}

function Clear-PassportalFakeExpectedViolation {
    <#
    .SYNOPSIS
    Removes every expected-violation declaration (DELETE /__admin/expected-violations).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Clear-PassportalFakeExpectedViolation
    #>
    [CmdletBinding(SupportsShouldProcess)]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process {
        Remove-FakeItem -Cmdlet $PSCmdlet -Fake $Fake -Path '/expected-violations' -What 'Clear expected violations'
    }
}

function Remove-PassportalFakeExpectedViolation {
    <#
    .SYNOPSIS
    Removes one expected-violation declaration (DELETE /__admin/expected-violations/{id}).
    .PARAMETER Id
    The declaration's id (piped from Get-PassportalFakeExpectedViolation, or Add-PassportalFakeExpectedViolation's answer).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last, or the one a piped declaration came from.
    .EXAMPLE
    Remove-PassportalFakeExpectedViolation -Session $session -Id $id
    #>
    [CmdletBinding(SupportsShouldProcess)]
    param(
        [Parameter(Mandatory, Position = 0, ValueFromPipelineByPropertyName)] [ValidateNotNullOrEmpty()] [string] $Id,
        [Parameter(ValueFromPipelineByPropertyName)] [Alias('Session', 'Url', 'PassportalFake')] [PassportalFakeTarget] $Fake
    )
    process {
        Remove-FakeItem -Cmdlet $PSCmdlet -Fake $Fake -Path '/expected-violations' -What 'expected violation' -Id $Id
    }
}
