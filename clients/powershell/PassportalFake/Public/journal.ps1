function Get-PassportalFakeRequest {
    <#
    .SYNOPSIS
    The journal: what the client sent and got, with violations and notices (GET /__admin/requests, or one request by -Id).
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
    asc (oldest first) or desc.
    .PARAMETER Limit
    At most this many requests.
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Get-PassportalFakeRequest -Method PATCH -Path '/api/v2/documents*'
    #>
    [CmdletBinding(DefaultParameterSetName = 'List')]
    param(
        [Parameter(Mandatory, ParameterSetName = 'One')] [long] $Id,
        [Parameter(ParameterSetName = 'List')] [string] $Method,
        [Parameter(ParameterSetName = 'List')] [string] $Path,
        [Parameter(ParameterSetName = 'List')] [int] $Status,
        [Parameter(ParameterSetName = 'List')] [switch] $WithViolations,
        [Parameter(ParameterSetName = 'List')] [switch] $WithNotices,
        [Parameter(ParameterSetName = 'List')] [ValidateSet('asc', 'desc')] [string] $Order,
        [Parameter(ParameterSetName = 'List')] [int] $Limit,
        [Parameter(ValueFromPipeline)] [Alias('Session', 'Url')] $Fake
    )
    process {
        $target = Resolve-FakeTarget $Fake
        if ($PSCmdlet.ParameterSetName -eq 'One') {
            return Invoke-FakeAdmin -Target $target -Method GET -Path "/requests/$Id"
        }
        $query = [ordered]@{ method = $Method; path = $Path; order = $Order }
        if ($Status) { $query['status'] = $Status }
        if ($Limit) { $query['limit'] = $Limit }
        if ($WithViolations) { $query['violations'] = $true }
        if ($WithNotices) { $query['notices'] = $true }
        $answer = Invoke-FakeAdmin -Target $target -Method GET -Path ('/requests' + (Get-QueryString $query))
        @($answer.requests)
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
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] $Fake)
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
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] $Fake)
    process { @((Invoke-FakeAdmin -Target (Resolve-FakeTarget $Fake) -Method GET -Path '/violations').violations) }
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
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] $Fake)
    process { @((Invoke-FakeAdmin -Target (Resolve-FakeTarget $Fake) -Method GET -Path '/notices').notices) }
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
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    Get-PassportalFakeReport -Run $runLabel -Format junit -OutFile ./passportal-fake.junit.xml
    #>
    [CmdletBinding()]
    param(
        [ValidateSet('json', 'junit', 'ctrf', 'markdown')] [string] $Format = 'json',
        [string] $OutFile,
        [string] $Run,
        [Parameter(ValueFromPipeline)] [Alias('Session', 'Url')] $Fake
    )
    process {
        $target = Resolve-FakeTarget $Fake
        $query = [ordered]@{ run = $Run }
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
    param(
        [string] $OutFile,
        [Parameter(ValueFromPipeline)] [Alias('Session', 'Url')] $Fake
    )
    process {
        $text = Invoke-FakeAdmin -Target (Resolve-FakeTarget $Fake) -Method GET -Path '/har' -Raw
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
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    Clear-PassportalFakeReport -Run nightly
    #>
    [CmdletBinding(SupportsShouldProcess)]
    param(
        [string] $Run,
        [Parameter(ValueFromPipeline)] [Alias('Session', 'Url')] $Fake
    )
    process {
        $target = Resolve-FakeTarget $Fake
        if ($PSCmdlet.ShouldProcess($target.BaseUrl, 'Clear the report')) {
            Invoke-FakeAdmin -Target $target -Method DELETE -Path ('/report' + (Get-QueryString ([ordered]@{ run = $Run }))) -Root:([bool]$Run) | Out-Null
        }
    }
}
