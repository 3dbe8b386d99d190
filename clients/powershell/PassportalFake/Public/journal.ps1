function Get-PassportalFakeRequest {
    <#
    .SYNOPSIS
    The journal: what the client sent and got, with violations and notices (GET /__admin/requests, or one request by -Id); every matching entry, read page by page.
    .DESCRIPTION
    Reads the whole matching journal, as many pages as it takes, oldest first: a long run's
    journal is never cut at the fake's page size. With -Limit it returns at most that many and
    warns when more match, naming how many; -TotalCount answers how many match without reading
    them. In this listing a body longer than 4 KiB is shortened (bodyTruncated); -Id gives one
    entry whole.
    .PARAMETER Id
    One request's journal id (GET /__admin/requests/{id}).
    .PARAMETER Method
    Only requests with this HTTP method.
    .PARAMETER Path
    Only requests to this path (ending in * : this prefix).
    .PARAMETER Status
    Only requests answered with this status.
    .PARAMETER WithViolations
    Only requests that violated the contract.
    .PARAMETER WithNotices
    Only requests with notices.
    .PARAMETER Order
    asc (oldest first, the default) or desc.
    .PARAMETER Limit
    At most this many requests (a warning says how many more match); default: all.
    .PARAMETER Offset
    Skip this many matching requests first.
    .PARAMETER Since
    Only requests with a journal id greater than this one (the id of the last entry read before).
    .PARAMETER TotalCount
    Answer how many requests match (the fake's count) instead of the requests.
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Get-PassportalFakeRequest -Method PATCH -Path '/api/v2/documents*'
    .EXAMPLE
    $session | Get-PassportalFakeRequest -TotalCount
    #>
    [CmdletBinding(DefaultParameterSetName = 'List')]
    [OutputType([System.Management.Automation.PSObject], [long])]
    param(
        [Parameter(Mandatory, ParameterSetName = 'One')] [long] $Id,
        [Parameter(ParameterSetName = 'List')] [ValidateLength(0, 32)] [string] $Method,
        [Parameter(ParameterSetName = 'List')] [ValidateLength(0, 2048)] [string] $Path,
        [Parameter(ParameterSetName = 'List')] [ValidateRange(100, 599)] [int] $Status,
        [Parameter(ParameterSetName = 'List')] [switch] $WithViolations,
        [Parameter(ParameterSetName = 'List')] [switch] $WithNotices,
        [Parameter(ParameterSetName = 'List')] [ValidateSet('asc', 'desc')] [string] $Order,
        [Parameter(ParameterSetName = 'List')] [ValidateRange(1, [int]::MaxValue)] [int] $Limit,
        [Parameter(ParameterSetName = 'List')] [ValidateRange(0, [int]::MaxValue)] [int] $Offset,
        [Parameter(ParameterSetName = 'List')] [ValidateRange(0, [long]::MaxValue)] [long] $Since,
        [Parameter(ParameterSetName = 'List')] [switch] $TotalCount,
        [Parameter(ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake
    )
    process {
        $target = Resolve-FakeTarget $Fake
        if ($PSCmdlet.ParameterSetName -eq 'One') {
            return Invoke-FakeAdmin -Target $target -Method GET -Path "/requests/$Id"
        }
        $query = [ordered]@{ method = $Method; path = $Path; order = $Order }
        if ($Status) { $query['status'] = $Status }
        if ($WithViolations) { $query['violations'] = $true }
        if ($WithNotices) { $query['notices'] = $true }
        if ($PSBoundParameters.ContainsKey('Since')) { $query['since'] = $Since }
        if ($TotalCount) {
            $query['limit'] = 1
            return [long](Invoke-FakeAdmin -Target $target -Method GET -Path ('/requests' + (Get-QueryString $query))).count
        }
        Read-FakeJournal -Target $target -Query $query -Limit $Limit -Offset $Offset
    }
}

function Clear-PassportalFakeRequest {
    <#
    .SYNOPSIS
    Empties the journal of a fake or session (DELETE /__admin/requests).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Clear-PassportalFakeRequest
    #>
    [CmdletBinding(SupportsShouldProcess)]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process {
        Remove-FakeItem -Cmdlet $PSCmdlet -Fake $Fake -Path '/requests' -What 'Clear the journal'
    }
}

function Get-PassportalFakeViolation {
    <#
    .SYNOPSIS
    The requests that violated the contract, each with its violations (location, message) (GET /__admin/violations).
    .DESCRIPTION
    Violations declared with Add-PassportalFakeExpectedViolation are not listed.
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Get-PassportalFakeViolation | ForEach-Object { $_.violations }
    #>
    [CmdletBinding()]
    [OutputType([System.Management.Automation.PSObject])]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process { @((Invoke-FakeAdmin -Target (Resolve-FakeTarget $Fake) -Method GET -Path '/violations' -Cmdlet $PSCmdlet).violations) }
}

function Get-PassportalFakeNotice {
    <#
    .SYNOPSIS
    The requests the fake served with a notice: allowed, but not what the documentation shows (GET /__admin/notices).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Get-PassportalFakeNotice
    #>
    [CmdletBinding()]
    [OutputType([System.Management.Automation.PSObject])]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process { @((Invoke-FakeAdmin -Target (Resolve-FakeTarget $Fake) -Method GET -Path '/notices' -Cmdlet $PSCmdlet).notices) }
}

function Get-PassportalFakeReport {
    <#
    .SYNOPSIS
    The fake's verdict for CI: operations and behaviours covered, violations, notices (GET /__admin/report).
    .PARAMETER Format
    json (an object, the default), junit, ctrf or markdown (text).
    .PARAMETER OutFile
    Write the report to this file instead of returning it (JUnit for your CI's test tab).
    .PARAMETER Run
    The report of every session labelled with this run (New-PassportalFakeSession -Run), asked of the root.
    .PARAMETER Tenant
    With --tenants: the tenant whose run it is (the operator's token; a tenant's token reads its own runs without it).
    .PARAMETER Partial
    With -Run in a fleet: the report of the replicas that answer when one does not (its `partial` and `missing` say which), instead of an error naming it.
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    Get-PassportalFakeReport -Run $runLabel -Format junit -OutFile ./passportal-fake.junit.xml
    #>
    [CmdletBinding()]
    [OutputType([System.Management.Automation.PSObject], [string], [System.IO.FileInfo])]
    param(
        [ValidateSet('json', 'junit', 'ctrf', 'markdown')] [string] $Format = 'json',
        [string] $OutFile,
        [string] $Run,
        [string] $Tenant,
        [switch] $Partial,
        [Parameter(ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake
    )
    process {
        $target = Resolve-FakeTarget $Fake
        $query = [ordered]@{ run = $Run; tenant = $Tenant }
        if ($Partial) { $query['partial'] = 'true' }
        if ($Format -ne 'json') { $query['format'] = $Format }
        $path = '/report' + (Get-QueryString $query)
        $text = Invoke-FakeAdmin -Target $target -Method GET -Path $path -Raw -Root:([bool]$Run)
        if ($OutFile) {
            $full = $ExecutionContext.SessionState.Path.GetUnresolvedProviderPathFromPSPath($OutFile)
            [System.IO.File]::WriteAllText($full, $text, (New-Object System.Text.UTF8Encoding($false)))
            return Get-Item -LiteralPath $full
        }
        if ($Format -eq 'json') { return ConvertFrom-Json -InputObject $text }
        $text
    }
}

function Get-PassportalFakeHar {
    <#
    .SYNOPSIS
    The journal as an HTTP Archive, HAR 1.2, credentials redacted (GET /__admin/har).
    .PARAMETER OutFile
    Write the archive to this file (open it in a browser's devtools) instead of returning it.
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Get-PassportalFakeHar -OutFile ./passportal-fake.har
    #>
    [CmdletBinding()]
    [OutputType([System.Management.Automation.PSObject], [System.IO.FileInfo])]
    param(
        [string] $OutFile,
        [Parameter(ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake
    )
    process {
        $text = Invoke-FakeAdmin -Target (Resolve-FakeTarget $Fake) -Method GET -Path '/har' -Raw -Cmdlet $PSCmdlet
        if ($null -eq $text) { return }
        if ($OutFile) {
            $full = $ExecutionContext.SessionState.Path.GetUnresolvedProviderPathFromPSPath($OutFile)
            [System.IO.File]::WriteAllText($full, $text, (New-Object System.Text.UTF8Encoding($false)))
            return Get-Item -LiteralPath $full
        }
        ConvertFrom-Json -InputObject $text
    }
}

function Clear-PassportalFakeReport {
    <#
    .SYNOPSIS
    Forgets what a report holds (DELETE /__admin/report), or a run's report with -Run.
    .PARAMETER Run
    The run whose report to clear (asked of the root).
    .PARAMETER Tenant
    With --tenants: the tenant whose run it is (the operator's token).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    Clear-PassportalFakeReport -Run nightly
    #>
    [CmdletBinding(SupportsShouldProcess)]
    param(
        [string] $Run,
        [string] $Tenant,
        [Parameter(ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake
    )
    process {
        $target = Resolve-FakeTarget $Fake
        if ($PSCmdlet.ShouldProcess($target.BaseUrl, 'Clear the report')) {
            # The per-test check still judges what came before the clear (Assert-PassportalFakeNoViolation).
            $carried = $null
            if (-not $Run) { $carried = Save-VerdictBeforeReportClear $target }
            Invoke-FakeAdmin -Target $target -Method DELETE -Path ('/report' + (Get-QueryString ([ordered]@{ run = $Run; tenant = $Tenant }))) -Root:([bool]$Run) | Out-Null
            if (-not $Run) { Restore-VerdictAfterReportClear $target $carried }
        }
    }
}
