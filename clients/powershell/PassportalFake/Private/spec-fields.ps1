# The admin API's fields as the commands take them. spec-fields.psd1 (made from the spec by
# npm run generate) lists, per admin operation, its commands and every field with its type,
# whether it is required and its bounds. A parameter sends the field of its own name in camel
# case (-WindowSeconds: windowSeconds) unless $script:FieldOfParameter names another: a field
# ('requestId'), $null (the command's own, sending no field: -OutFile) or '*' (a hashtable of the
# body's fields, checked here at run time: -Setting). -Fake is every command's target, no field.
# test/clients/powershell-fields.test.ts holds every command's parameters and [Validate*]
# attributes to the spec, and this table to the commands.

$script:SpecFields = Import-PowerShellDataFile -LiteralPath (Join-Path $PSScriptRoot 'spec-fields.psd1')

$script:FieldOfParameter = @{
    'Import-PassportalFakeFixture'           = @{ Path = '*'; FixtureSet = '*' }
    'Get-PassportalFakeRequest'              = @{ Id = 'requestId'; WithViolations = 'violations'; WithNotices = 'notices'; TotalCount = $null }
    'Get-PassportalFakeReport'               = @{ OutFile = $null }
    'Get-PassportalFakeHar'                  = @{ OutFile = $null }
    'Remove-PassportalFakeExpectedViolation' = @{ Id = 'expectationId' }
    'Remove-PassportalFakeFault'             = @{ Id = 'faultId' }
    'Remove-PassportalFakeRateLimit'         = @{ Id = 'rateLimitId' }
    'Invoke-PassportalFakeScenario'          = @{ Parameter = '*' }
    'Set-PassportalFakeSetting'              = @{ Setting = '*' }
    'New-PassportalFakeSession'              = @{ OwnKeys = 'keys'; NoExpiry = 'expires' }
    'Remove-PassportalFakeSession'           = @{ Session = 'sessionId'; Id = 'sessionId' }
}

# What a parameter deliberately does not share with its field (its type or bounds), with the reason.
$script:FieldExceptions = @{
    'Get-PassportalFakeRequest'    = @{ Id = 'Type: the journal id is a number; the path takes its digits'; Limit = 'Maximum: -Limit caps all the pages read, each page at most the spec''s maximum' }
    'Set-PassportalFakeClock'      = @{ Now = 'Minimum: a DateTime or Unix seconds, made Unix seconds before it is sent' }
    'Remove-PassportalFakeSession' = @{ Session = 'Type, MinLength: a session (New-PassportalFakeSession), whose Id is sent' }
}

function Test-FakeFieldValue {
    # Why a value does not fit a field of the table ($null when it fits).
    param([hashtable] $Field, $Value)
    if ($null -eq $Value) { return $null }
    $name = $Field.Name
    switch -Regex ($Field.Type) {
        '^integer$' {
            if (-not ($Value -is [int] -or $Value -is [long] -or $Value -is [short] -or $Value -is [byte] -or ($Value -is [double] -and [math]::Floor($Value) -eq $Value))) { return "$name must be an integer (got '$Value')" }
        }
        '^number$' {
            if (-not ($Value -is [int] -or $Value -is [long] -or $Value -is [double] -or $Value -is [decimal] -or $Value -is [single])) { return "$name must be a number (got '$Value')" }
        }
        '^boolean$' { if ($Value -isnot [bool]) { return "$name must be `$true or `$false (got '$Value')" } }
        '^string$' { if ($Value -isnot [string]) { return "$name must be a string (got '$Value')" } }
    }
    if ($Field.ContainsKey('Minimum') -and $Value -lt $Field.Minimum) { return "$name must be at least $($Field.Minimum) (got $Value)" }
    if ($Field.ContainsKey('Maximum') -and $Value -gt $Field.Maximum) { return "$name must be at most $($Field.Maximum) (got $Value)" }
    if ($Field.ContainsKey('MinLength') -and ([string]$Value).Length -lt $Field.MinLength) { return "$name must be at least $($Field.MinLength) characters" }
    if ($Field.ContainsKey('MaxLength') -and ([string]$Value).Length -gt $Field.MaxLength) { return "$name must be at most $($Field.MaxLength) characters" }
    if ($Field.ContainsKey('Enum') -and @($Field.Enum) -cnotcontains $Value) { return "$name must be one of $(@($Field.Enum) -join ', ') (got '$Value')" }
    $null
}

function Assert-FakeField {
    # Stops the calling command (-Cmdlet, its $PSCmdlet) when a hashtable of body fields holds a
    # field the operation lacks or a value outside the spec's bounds, before anything is sent.
    param([Parameter(Mandatory)] $Cmdlet, [Parameter(Mandatory)] [string] $Operation, [System.Collections.IDictionary] $Fields)
    $spec = $script:SpecFields[$Operation]
    $problems = @()
    foreach ($key in @($Fields.Keys)) {
        $field = @($spec.Fields) | Where-Object { $_.Name -ceq $key -and $_.In -eq 'body' } | Select-Object -First 1
        if ($null -eq $field) {
            if (-not $spec.OpenBody) { $problems += "$key is not a field of $Operation ($(@($spec.Fields | ForEach-Object { $_.Name }) -join ', '))" }
            continue
        }
        $why = Test-FakeFieldValue $field $Fields[$key]
        if ($why) { $problems += $why }
    }
    if ($problems.Count -gt 0) {
        $exception = New-Object System.ArgumentException("$($Cmdlet.MyInvocation.MyCommand.Name): $($problems -join '; ').")
        $Cmdlet.ThrowTerminatingError((New-Object System.Management.Automation.ErrorRecord($exception, 'PassportalFake.InvalidField', [System.Management.Automation.ErrorCategory]::InvalidArgument, $Fields)))
    }
}
