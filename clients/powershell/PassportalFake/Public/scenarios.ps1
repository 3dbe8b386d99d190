function Get-PassportalFakeScenario {
    <#
    .SYNOPSIS
    The built-in scenarios (name, description, what each catches, parameters) and those applied (GET /__admin/scenarios).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    (Get-PassportalFakeScenario).scenarios | Format-Table name, description
    #>
    [CmdletBinding()]
    [OutputType([System.Management.Automation.PSObject])]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process { Invoke-FakeAdmin -Target (Resolve-FakeTarget $Fake) -Method GET -Path '/scenarios' -Cmdlet $PSCmdlet }
}

function Invoke-PassportalFakeScenario {
    <#
    .SYNOPSIS
    Applies a scenario: a built-in one by name with its parameters, or your own steps (POST /__admin/scenarios); returns its id.
    .PARAMETER Name
    The scenario's name, e.g. token-expires-mid-crawl, throttled, flaky, changed-under-you.
    .PARAMETER Parameter
    Its parameters, e.g. @{ afterRequests = 3 }.
    .PARAMETER Steps
    Steps of a scenario of your own (docs/scenarios.md).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Invoke-PassportalFakeScenario -Name flaky -Parameter @{ probability = 0.2; seed = 7; status = 503 }
    #>
    [CmdletBinding(SupportsShouldProcess)]
    [OutputType([string])]
    param(
        [Parameter(Mandatory, Position = 0)] [string] $Name,
        [hashtable] $Parameter = @{},
        [object[]] $Steps,
        [Parameter(ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake
    )
    process {
        Assert-FakeField -Cmdlet $PSCmdlet -Operation applyScenario -Fields $Parameter
        $target = Resolve-FakeTarget $Fake
        $body = [ordered]@{ name = $Name }
        foreach ($key in $Parameter.Keys) { $body[$key] = $Parameter[$key] }
        if ($PSBoundParameters.ContainsKey('Steps')) { $body['steps'] = $Steps }
        if ($PSCmdlet.ShouldProcess($target.BaseUrl, "Apply scenario $Name")) {
            [string](Invoke-FakeAdmin -Target $target -Method POST -Path '/scenarios' -Body $body).id
        }
    }
}

function Clear-PassportalFakeScenario {
    <#
    .SYNOPSIS
    Removes the applied scenarios and what they installed (DELETE /__admin/scenarios).
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    $session | Clear-PassportalFakeScenario
    #>
    [CmdletBinding(SupportsShouldProcess)]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process {
        Remove-FakeItem -Cmdlet $PSCmdlet -Fake $Fake -Path '/scenarios' -What 'Clear scenarios'
    }
}
