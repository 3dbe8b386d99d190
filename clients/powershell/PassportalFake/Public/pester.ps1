function Assert-PassportalFakeNoViolation {
    <#
    .SYNOPSIS
    Throws when a fake or session saw contract violations, or a declared violation never came, since its previous check; the message lists each (method, path, location, message).
    .DESCRIPTION
    Each check judges what happened since the previous check of the same fake or session (or
    since Start-PassportalFake or New-PassportalFakeSession made it), by the exact counts of its
    report: violating requests and declarations never met. A reset, a fixture load or a cleared
    journal hides nothing, and a violation fails only the check after it: in AfterEach, the test
    that caused it. A URL this module did not start or create is judged on its whole report the
    first time. Violations declared with Add-PassportalFakeExpectedViolation pass. The message
    never holds a token or a secret. In Pester, `Should -HaveNoPassportalViolation` (Pester 5
    and 6) and `Should-HaveNoPassportalViolation` (Pester 6) do the same.
    .PARAMETER Fake
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL; default: the fake started last.
    .EXAMPLE
    AfterEach { $session | Assert-PassportalFakeNoViolation }
    #>
    [CmdletBinding()]
    param([Parameter(Position = 0, ValueFromPipeline)] [Alias('Session', 'Url')] [PassportalFakeTarget] $Fake)
    process {
        $finding = Get-ViolationFinding (Resolve-FakeTarget $Fake)
        if ($finding.Failed) {
            $exception = New-Object System.InvalidOperationException (Format-ViolationFinding $finding)
            $PSCmdlet.ThrowTerminatingError((New-Object System.Management.Automation.ErrorRecord($exception, 'PassportalFake.Violations', [System.Management.Automation.ErrorCategory]::InvalidResult, $finding.BaseUrl)))
        }
    }
}

function Test-PassportalFakeShouldOperator {
    # The operator Should -HaveNoPassportalViolation (Pester's Add-ShouldOperator contract).
    param($ActualValue, [switch] $Negate, [string] $Because)
    $targets = @($ActualValue)
    if ($targets.Count -ne 1) {
        return [pscustomobject]@{ Succeeded = $false; FailureMessage = "Expected one fake, session or URL piped to Should -HaveNoPassportalViolation, but got $($targets.Count)." }
    }
    $finding = Get-ViolationFinding (Resolve-FakeTarget $targets[0])
    $clean = -not $finding.Failed
    if ($Negate) {
        if ($clean) { return [pscustomobject]@{ Succeeded = $false; FailureMessage = "Expected Passportal contract violations at $($finding.BaseUrl) since the previous check, but found none." } }
        return [pscustomobject]@{ Succeeded = $true; FailureMessage = $null }
    }
    if ($clean) { return [pscustomobject]@{ Succeeded = $true; FailureMessage = $null } }
    [pscustomobject]@{ Succeeded = $false; FailureMessage = (Format-ViolationFinding $finding $Because) }
}

function Register-PassportalFakeShouldOperator {
    <#
    .SYNOPSIS
    Adds `Should -HaveNoPassportalViolation` to Pester (Add-ShouldOperator) and, with Pester 6, `Should-HaveNoPassportalViolation`; done on import when Pester is loaded.
    .DESCRIPTION
    Importing this module after Pester registers the operator; call this when Pester was loaded
    after the module. Registering twice is harmless.
    .EXAMPLE
    BeforeAll { Import-Module PassportalFake }   # inside Invoke-Pester: registered
    It 'is clean' { $session | Should -HaveNoPassportalViolation }
    #>
    [CmdletBinding()]
    param()
    $add = Get-Command Add-ShouldOperator -ErrorAction SilentlyContinue
    if (-not $add) { throw 'Pester is not loaded: Import-Module Pester (5 or later) first.' }
    $existing = Get-ShouldOperator | Where-Object { $_.Name -eq 'HaveNoPassportalViolation' }
    if (-not $existing) {
        Add-ShouldOperator -Name HaveNoPassportalViolation -InternalName 'Test-PassportalFakeShouldOperator' -Test ${function:Test-PassportalFakeShouldOperator} -SupportsArrayInput
    }
    # Pester 6's assertion style: a Should-* command. Defined for the session rather than exported,
    # as Pester's own are, so importing the module warns of no unapproved verb.
    if (Get-Command New-ShouldAssertion -ErrorAction SilentlyContinue) {
        Set-Item -Path function:global:Should-HaveNoPassportalViolation -Value ${function:Should-HaveNoPassportalViolation}
    }
}

function Should-HaveNoPassportalViolation {
    <#
    .SYNOPSIS
    Pester 6 style assertion: fails when a fake or session saw contract violations or a declared violation never came since its previous check (see Assert-PassportalFakeNoViolation).
    .DESCRIPTION
    Uses Pester 6's New-ShouldAssertion, so -ErrorAction Continue makes it a soft assertion;
    without Pester 6 it throws like Assert-PassportalFakeNoViolation.
    .PARAMETER Actual
    A fake (Start-PassportalFake), a session (New-PassportalFakeSession) or a base URL.
    .PARAMETER Because
    Why the check matters; shown in the failure.
    .EXAMPLE
    $session | Should-HaveNoPassportalViolation
    #>
    [System.Diagnostics.CodeAnalysis.SuppressMessageAttribute('PSUseApprovedVerbs', '', Justification = "Pester 6's assertion naming")]
    [CmdletBinding()]
    param(
        [Parameter(Position = 0, ValueFromPipeline)] $Actual,
        [string] $Because
    )
    $newAssertion = Get-Command New-ShouldAssertion -ErrorAction SilentlyContinue
    if ($newAssertion) {
        $assert = New-ShouldAssertion -Caller $PSCmdlet -Actual $Actual -Buffer $local:Input
        $Actual = $assert.Actual()
    } elseif ($null -eq $Actual) {
        $Actual = @($local:Input) | Select-Object -First 1
    }
    $finding = Get-ViolationFinding (Resolve-FakeTarget $Actual)
    if (-not $finding.Failed) { return }
    $message = Format-ViolationFinding $finding $Because
    if ($newAssertion) {
        # The message is passed as data: the fake's messages may hold <...>, which Fail() would read as tokens.
        $assert.Fail('<found>', @{ found = $message; Hint = $null })
    } else {
        throw $message
    }
}
