# Made by scripts/powershell-spec-fields.ts from spec/openapi.yaml; do not edit (npm run generate).
# Per admin operation: the commands that call it and every field it takes, with the JSON type,
# whether the spec requires it and the bounds the spec gives it.
@{
    getHealth = @{
        Method = 'GET'
        Path = '/__admin/health'
        Commands = @('Get-PassportalFakeHealth')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    drainReplica = @{
        Method = 'POST'
        Path = '/__admin/fleet/drain'
        Commands = @('Invoke-PassportalFakeDrain')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    resetState = @{
        Method = 'POST'
        Path = '/__admin/reset'
        Commands = @('Reset-PassportalFake')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    loadFixtures = @{
        Method = 'PUT'
        Path = '/__admin/fixtures'
        Commands = @('Import-PassportalFakeFixture')
        WholeBody = $true
        OpenBody = $false
        Fields = @()
    }
    getState = @{
        Method = 'GET'
        Path = '/__admin/state'
        Commands = @('Get-PassportalFakeState')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    listRequests = @{
        Method = 'GET'
        Path = '/__admin/requests'
        Commands = @('Get-PassportalFakeRequest')
        WholeBody = $false
        OpenBody = $false
        Fields = @(
            @{ Name = 'method'; In = 'query'; Type = 'string'; Required = $false; MaxLength = 32 }
            @{ Name = 'path'; In = 'query'; Type = 'string'; Required = $false; MaxLength = 2048 }
            @{ Name = 'violations'; In = 'query'; Type = 'boolean'; Required = $false }
            @{ Name = 'notices'; In = 'query'; Type = 'boolean'; Required = $false }
            @{ Name = 'order'; In = 'query'; Type = 'string'; Required = $false; Enum = @('asc', 'desc') }
            @{ Name = 'limit'; In = 'query'; Type = 'integer'; Required = $false; Minimum = 1; Maximum = 1000 }
            @{ Name = 'offset'; In = 'query'; Type = 'integer'; Required = $false; Minimum = 0 }
            @{ Name = 'status'; In = 'query'; Type = 'integer'; Required = $false; Minimum = 100; Maximum = 599 }
            @{ Name = 'since'; In = 'query'; Type = 'integer'; Required = $false; Minimum = 0 }
        )
    }
    clearRequests = @{
        Method = 'DELETE'
        Path = '/__admin/requests'
        Commands = @('Clear-PassportalFakeRequest')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    getRequest = @{
        Method = 'GET'
        Path = '/__admin/requests/{requestId}'
        Commands = @('Get-PassportalFakeRequest')
        WholeBody = $false
        OpenBody = $false
        Fields = @(
            @{ Name = 'requestId'; In = 'path'; Type = 'string'; Required = $true }
        )
    }
    listViolations = @{
        Method = 'GET'
        Path = '/__admin/violations'
        Commands = @('Get-PassportalFakeViolation', 'Assert-PassportalFakeNoViolation')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    listNotices = @{
        Method = 'GET'
        Path = '/__admin/notices'
        Commands = @('Get-PassportalFakeNotice')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    getReport = @{
        Method = 'GET'
        Path = '/__admin/report'
        Commands = @('Get-PassportalFakeReport')
        WholeBody = $false
        OpenBody = $false
        Fields = @(
            @{ Name = 'run'; In = 'query'; Type = 'string'; Required = $false }
            @{ Name = 'tenant'; In = 'query'; Type = 'string'; Required = $false }
            @{ Name = 'partial'; In = 'query'; Type = 'string'; Required = $false; Enum = @('1', 'true') }
            @{ Name = 'format'; In = 'query'; Type = 'string'; Required = $false; Enum = @('json', 'junit', 'ctrf', 'markdown') }
        )
    }
    clearReport = @{
        Method = 'DELETE'
        Path = '/__admin/report'
        Commands = @('Clear-PassportalFakeReport')
        WholeBody = $false
        OpenBody = $false
        Fields = @(
            @{ Name = 'run'; In = 'query'; Type = 'string'; Required = $false }
            @{ Name = 'tenant'; In = 'query'; Type = 'string'; Required = $false }
        )
    }
    getHar = @{
        Method = 'GET'
        Path = '/__admin/har'
        Commands = @('Get-PassportalFakeHar')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    listExpectedViolations = @{
        Method = 'GET'
        Path = '/__admin/expected-violations'
        Commands = @('Get-PassportalFakeExpectedViolation')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    createExpectedViolation = @{
        Method = 'POST'
        Path = '/__admin/expected-violations'
        Commands = @('Add-PassportalFakeExpectedViolation')
        WholeBody = $false
        OpenBody = $false
        Fields = @(
            @{ Name = 'method'; In = 'body'; Type = 'string'; Required = $false; MaxLength = 32 }
            @{ Name = 'path'; In = 'body'; Type = 'string'; Required = $false; MaxLength = 2048 }
            @{ Name = 'location'; In = 'body'; Type = 'string'; Required = $false; MinLength = 1; MaxLength = 1024 }
            @{ Name = 'times'; In = 'body'; Type = 'integer'; Required = $false; Minimum = 1; Maximum = 1000000 }
        )
    }
    clearExpectedViolations = @{
        Method = 'DELETE'
        Path = '/__admin/expected-violations'
        Commands = @('Clear-PassportalFakeExpectedViolation')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    deleteExpectedViolation = @{
        Method = 'DELETE'
        Path = '/__admin/expected-violations/{expectationId}'
        Commands = @('Remove-PassportalFakeExpectedViolation')
        WholeBody = $false
        OpenBody = $false
        Fields = @(
            @{ Name = 'expectationId'; In = 'path'; Type = 'string'; Required = $true; MinLength = 1 }
        )
    }
    listFaults = @{
        Method = 'GET'
        Path = '/__admin/faults'
        Commands = @('Get-PassportalFakeFault')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    createFault = @{
        Method = 'POST'
        Path = '/__admin/faults'
        Commands = @('Add-PassportalFakeFault')
        WholeBody = $false
        OpenBody = $false
        Fields = @(
            @{ Name = 'method'; In = 'body'; Type = 'string'; Required = $false; MaxLength = 32 }
            @{ Name = 'path'; In = 'body'; Type = 'string'; Required = $false; MaxLength = 2048 }
            @{ Name = 'status'; In = 'body'; Type = 'integer'; Required = $false; Minimum = 200; Maximum = 599 }
            @{ Name = 'body'; In = 'body'; Type = 'any'; Required = $false }
            @{ Name = 'delayMs'; In = 'body'; Type = 'integer'; Required = $false; Minimum = 0; Maximum = 600000 }
            @{ Name = 'times'; In = 'body'; Type = 'integer'; Required = $false; Minimum = 1 }
            @{ Name = 'drop'; In = 'body'; Type = 'boolean'; Required = $false }
            @{ Name = 'headers'; In = 'body'; Type = 'object'; Required = $false }
            @{ Name = 'probability'; In = 'body'; Type = 'number'; Required = $false; Minimum = 0; Maximum = 1 }
            @{ Name = 'seed'; In = 'body'; Type = 'integer'; Required = $false; Minimum = 0; Maximum = 4294967295 }
            @{ Name = 'after'; In = 'body'; Type = 'integer'; Required = $false; Minimum = 0 }
        )
    }
    clearFaults = @{
        Method = 'DELETE'
        Path = '/__admin/faults'
        Commands = @('Clear-PassportalFakeFault')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    deleteFault = @{
        Method = 'DELETE'
        Path = '/__admin/faults/{faultId}'
        Commands = @('Remove-PassportalFakeFault')
        WholeBody = $false
        OpenBody = $false
        Fields = @(
            @{ Name = 'faultId'; In = 'path'; Type = 'string'; Required = $true; MinLength = 1 }
        )
    }
    listRateLimits = @{
        Method = 'GET'
        Path = '/__admin/rate-limits'
        Commands = @('Get-PassportalFakeRateLimit')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    createRateLimit = @{
        Method = 'POST'
        Path = '/__admin/rate-limits'
        Commands = @('Add-PassportalFakeRateLimit')
        WholeBody = $false
        OpenBody = $false
        Fields = @(
            @{ Name = 'per'; In = 'body'; Type = 'string'; Required = $true; Enum = @('key', 'token', 'session', 'instance') }
            @{ Name = 'limit'; In = 'body'; Type = 'integer'; Required = $true; Minimum = 1; Maximum = 1000000 }
            @{ Name = 'windowSeconds'; In = 'body'; Type = 'integer'; Required = $true; Minimum = 1; Maximum = 86400 }
            @{ Name = 'method'; In = 'body'; Type = 'string'; Required = $false; MaxLength = 32 }
            @{ Name = 'path'; In = 'body'; Type = 'string'; Required = $false; MaxLength = 2048 }
        )
    }
    clearRateLimits = @{
        Method = 'DELETE'
        Path = '/__admin/rate-limits'
        Commands = @('Clear-PassportalFakeRateLimit')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    deleteRateLimit = @{
        Method = 'DELETE'
        Path = '/__admin/rate-limits/{rateLimitId}'
        Commands = @('Remove-PassportalFakeRateLimit')
        WholeBody = $false
        OpenBody = $false
        Fields = @(
            @{ Name = 'rateLimitId'; In = 'path'; Type = 'string'; Required = $true; MinLength = 1 }
        )
    }
    listScenarios = @{
        Method = 'GET'
        Path = '/__admin/scenarios'
        Commands = @('Get-PassportalFakeScenario')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    applyScenario = @{
        Method = 'POST'
        Path = '/__admin/scenarios'
        Commands = @('Invoke-PassportalFakeScenario')
        WholeBody = $false
        OpenBody = $true
        Fields = @(
            @{ Name = 'name'; In = 'body'; Type = 'string'; Required = $true }
            @{ Name = 'steps'; In = 'body'; Type = 'array'; Required = $false }
        )
    }
    clearScenarios = @{
        Method = 'DELETE'
        Path = '/__admin/scenarios'
        Commands = @('Clear-PassportalFakeScenario')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    getClock = @{
        Method = 'GET'
        Path = '/__admin/clock'
        Commands = @('Get-PassportalFakeClock')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    setClock = @{
        Method = 'POST'
        Path = '/__admin/clock'
        Commands = @('Set-PassportalFakeClock')
        WholeBody = $false
        OpenBody = $false
        Fields = @(
            @{ Name = 'advanceSeconds'; In = 'body'; Type = 'integer'; Required = $false }
            @{ Name = 'now'; In = 'body'; Type = 'integer'; Required = $false; Minimum = 0 }
        )
    }
    revokeTokens = @{
        Method = 'POST'
        Path = '/__admin/tokens/revoke'
        Commands = @('Revoke-PassportalFakeToken')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    getSettings = @{
        Method = 'GET'
        Path = '/__admin/settings'
        Commands = @('Get-PassportalFakeSetting')
        WholeBody = $false
        OpenBody = $false
        Fields = @()
    }
    updateSettings = @{
        Method = 'PUT'
        Path = '/__admin/settings'
        Commands = @('Set-PassportalFakeSetting')
        WholeBody = $false
        OpenBody = $false
        Fields = @(
            @{ Name = 'tokenTtlSeconds'; In = 'body'; Type = 'integer'; Required = $false; Minimum = 1; Maximum = 31536000 }
            @{ Name = 'hashEncoding'; In = 'body'; Type = 'string'; Required = $false; Enum = @('hex', 'base64', 'any') }
            @{ Name = 'defaultPageNum'; In = 'body'; Type = 'integer'; Required = $false; Minimum = 1; Maximum = 9999 }
            @{ Name = 'maxResultsPerPage'; In = 'body'; Type = 'integer'; Required = $false; Minimum = 1; Maximum = 100000 }
            @{ Name = 'unknownDetailKeys'; In = 'body'; Type = 'string'; Required = $false; Enum = @('reject', 'accept') }
            @{ Name = 'successLiterals'; In = 'body'; Type = 'string'; Required = $false; Enum = @('contract', 'boolean') }
            @{ Name = 'errorSuccess'; In = 'body'; Type = 'string'; Required = $false; Enum = @('boolean', 'string') }
            @{ Name = 'readShapedDetails'; In = 'body'; Type = 'string'; Required = $false; Enum = @('accept', 'reject') }
            @{ Name = 'latencyMs'; In = 'body'; Type = 'integer'; Required = $false; Minimum = 0; Maximum = 60000 }
            @{ Name = 'maxBatchItems'; In = 'body'; Type = 'integer'; Required = $false; Minimum = 1; Maximum = 1000000 }
            @{ Name = 'maxCreatedDocuments'; In = 'body'; Type = 'integer'; Required = $false; Minimum = 0; Maximum = 10000000 }
            @{ Name = 'validateResponses'; In = 'body'; Type = 'boolean'; Required = $false }
        )
    }
    listSessions = @{
        Method = 'GET'
        Path = '/__admin/sessions'
        Commands = @('Get-PassportalFakeSession')
        WholeBody = $false
        OpenBody = $false
        Fields = @(
            @{ Name = 'partial'; In = 'query'; Type = 'string'; Required = $false; Enum = @('1', 'true') }
        )
    }
    createSession = @{
        Method = 'POST'
        Path = '/__admin/sessions'
        Commands = @('New-PassportalFakeSession')
        WholeBody = $false
        OpenBody = $false
        Fields = @(
            @{ Name = 'fixtures'; In = 'body'; Type = 'object'; Required = $false }
            @{ Name = 'expires'; In = 'body'; Type = 'boolean'; Required = $false }
            @{ Name = 'keys'; In = 'body'; Type = 'string'; Required = $false; Enum = @('fixtures', 'own') }
            @{ Name = 'run'; In = 'body'; Type = 'string'; Required = $false }
        )
    }
    deleteSession = @{
        Method = 'DELETE'
        Path = '/__admin/sessions/{sessionId}'
        Commands = @('Remove-PassportalFakeSession')
        WholeBody = $false
        OpenBody = $false
        Fields = @(
            @{ Name = 'sessionId'; In = 'path'; Type = 'string'; Required = $true; MinLength = 1 }
        )
    }
}
