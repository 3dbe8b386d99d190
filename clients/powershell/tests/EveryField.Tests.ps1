# Every field of every admin operation, sent through the module's commands to the real fake.
#
# One test per operation that takes fields (Private/spec-fields.psd1, made from the spec): it
# sends each of them through the command's parameters and asserts what the fake did with it,
# while Send records which fields the parameters carried (by the module's own parameter-to-field
# table). A field the spec gains (npm run generate) fails its operation's test, naming the field,
# until a test here sends it; an operation that gains its first field fails for want of a test.
BeforeDiscovery {
    $table = Import-PowerShellDataFile -LiteralPath (Join-Path $PSScriptRoot '../PassportalFake/Private/spec-fields.psd1')
    $operations = @($table.Keys | Where-Object { @($table[$_].Fields).Count -gt 0 } | Sort-Object | ForEach-Object { @{ Operation = $_ } })
}

BeforeAll {
    . (Join-Path $PSScriptRoot 'TestFake.ps1')
    $start = Get-TestFakeStart
    $fake = Start-PassportalFake @start
    $session = New-PassportalFakeSession -Fake $fake
    $module = Get-Module PassportalFake
    $table = & $module { $script:SpecFields }
    $names = & $module { $script:FieldOfParameter }
    $script:sent = [System.Collections.Generic.HashSet[string]]::new()

    function Send {
        # Runs a command with parameters, recording the fields they carry.
        param([string] $Command, [hashtable] $With = @{})
        foreach ($key in $With.Keys) {
            $field = $key.Substring(0, 1).ToLowerInvariant() + $key.Substring(1)
            if ($names.ContainsKey($Command) -and $names[$Command].ContainsKey($key)) { $field = $names[$Command][$key] }
            if ($field -eq '*') {
                foreach ($inner in $With[$key].Keys) { [void]$script:sent.Add($inner) }
            } elseif ($field) {
                [void]$script:sent.Add($field)
            }
        }
        & $Command @With
    }

    function Get-DocumentStatus {
        # A documents list's status as a client gets it (a dropped connection throws).
        param($Target, [string] $Query = 'pageNum=1')
        $token = ($Target | Get-PassportalFakeToken).access_token
        $response = Invoke-WebRequest -Uri "$($Target.BaseUrl)/api/v2/documents?$Query" -Headers @{ 'x-access-token' = $token } -SkipHttpErrorCheck -NoProxy
        [int]$response.StatusCode
    }

    $drivers = @{
        listRequests            = {
            Add-PassportalFakeExpectedViolation -Fake $session -Path /api/v2/documents -Location query.pageNum | Out-Null
            Get-DocumentStatus $session 'pageNum=1' | Should -Be 200
            Get-DocumentStatus $session 'pageNum=zero' | Should -Be 404
            Get-DocumentStatus $session '' | Should -Be 200
            $first = @(Send Get-PassportalFakeRequest @{ Fake = $session; Path = '/api/v2/documents'; Method = 'GET'; Order = 'asc'; Limit = 1; Offset = 0 } 3>$null)
            $first.Count | Should -Be 1
            $newest = @(Send Get-PassportalFakeRequest @{ Fake = $session; Path = '/api/v2/documents'; Order = 'desc' })[0]
            @(Get-PassportalFakeRequest -Fake $session -Path '/api/v2/documents' -Offset 2)[0].id | Should -Be $newest.id
            $violating = @(Send Get-PassportalFakeRequest @{ Fake = $session; Path = '/api/v2/documents'; WithViolations = $true })
            $violating.Count | Should -Be 1
            $violating[0].status | Should -Be 404
            @(Send Get-PassportalFakeRequest @{ Fake = $session; Path = '/api/v2/documents'; WithNotices = $true }).id | Should -Be @($newest.id)
            @(Send Get-PassportalFakeRequest @{ Fake = $session; Status = 404 }).Count | Should -Be 1
            @(Send Get-PassportalFakeRequest @{ Fake = $session; Path = '/api/v2/documents'; Since = [long]$violating[0].id }).id | Should -Be @($newest.id)
        }
        getRequest              = {
            Get-DocumentStatus $session | Should -Be 200
            $entry = @(Get-PassportalFakeRequest -Fake $session -Order desc -Limit 1 3>$null)[0]
            $whole = Send Get-PassportalFakeRequest @{ Fake = $session; Id = [long]$entry.id }
            $whole.id | Should -Be $entry.id
            $whole.path | Should -Be '/api/v2/documents'
        }
        getReport               = {
            $label = "fields-$([guid]::NewGuid().ToString('N').Substring(0, 8))"
            $own = New-PassportalFakeSession -Fake $fake -Run $label
            try {
                Get-DocumentStatus $own | Should -Be 200
                (Send Get-PassportalFakeReport @{ Fake = $fake; Run = $label }).run | Should -Be $label
                Send Get-PassportalFakeReport @{ Fake = $fake; Run = $label; Format = 'markdown' } | Should -Not -BeNullOrEmpty
                # One process is a whole fleet: nothing is missing, so -Partial reports the same run.
                (Send Get-PassportalFakeReport @{ Fake = $fake; Run = $label; Partial = $true }).run | Should -Be $label
                # Without --tenants no tenant exists: the fake reads the field and names it.
                { Send Get-PassportalFakeReport @{ Fake = $fake; Run = $label; Tenant = 'nobody' } } | Should -Throw '*answered 400*query.tenant*'
            } finally { $own | Remove-PassportalFakeSession }
        }
        clearReport             = {
            $label = "fields-$([guid]::NewGuid().ToString('N').Substring(0, 8))"
            $own = New-PassportalFakeSession -Fake $fake -Run $label
            try {
                Get-DocumentStatus $own | Should -Be 200
                (Get-PassportalFakeReport -Fake $fake -Run $label).requests.total | Should -BeGreaterOrEqual 1
                Send Clear-PassportalFakeReport @{ Fake = $fake; Run = $label }
                (Get-PassportalFakeReport -Fake $fake -Run $label).requests.total | Should -Be 0
                { Send Clear-PassportalFakeReport @{ Fake = $fake; Run = $label; Tenant = 'nobody' } } | Should -Throw '*answered 400*query.tenant*'
            } finally { $own | Remove-PassportalFakeSession }
        }
        createExpectedViolation = {
            $declared = Send Add-PassportalFakeExpectedViolation @{ Fake = $session; Method = 'GET'; Path = '/api/v2/documents*'; Location = 'query.pageNum'; Times = 2 }
            Get-DocumentStatus $session 'pageNum=zero' | Should -Be 404
            Get-DocumentStatus $session 'pageNum=-1' | Should -Be 404
            $met = @(Get-PassportalFakeExpectedViolation -Fake $session)
            $met.Count | Should -Be 1
            $met[0].id | Should -Be $declared
            $met[0].met | Should -Be 2
            $met[0].times | Should -Be 2
        }
        deleteExpectedViolation = {
            $declared = Add-PassportalFakeExpectedViolation -Fake $session -Location query.pageNum
            Send Remove-PassportalFakeExpectedViolation @{ Fake = $session; Id = $declared }
            @(Get-PassportalFakeExpectedViolation -Fake $session).Count | Should -Be 0
        }
        createFault             = {
            $chance = Send Add-PassportalFakeFault @{ Fake = $session; Method = 'GET'; Path = '/api/v2/documents'; Status = 503; Body = @{ message = 'busy' }; Headers = @{ 'Retry-After' = '5' }; Times = 1; After = 1; Probability = 1.0; Seed = 7 }
            $listed = @(Get-PassportalFakeFault -Fake $session)
            $listed.Count | Should -Be 1
            $listed[0].id | Should -Be $chance
            $listed[0].seed | Should -Be 7
            $listed[0].probability | Should -Be 1
            Get-DocumentStatus $session | Should -Be 200   # After: the first goes through
            $token = ($session | Get-PassportalFakeToken).access_token
            $response = Invoke-WebRequest -Uri "$($session.BaseUrl)/api/v2/documents?pageNum=1" -Headers @{ 'x-access-token' = $token } -SkipHttpErrorCheck -NoProxy
            [int]$response.StatusCode | Should -Be 503
            (ConvertFrom-Json $response.Content).message | Should -Be 'busy'
            [string]$response.Headers['Retry-After'] | Should -Be '5'
            @(Get-PassportalFakeFault -Fake $session).Count | Should -Be 0   # Times used up
            Send Add-PassportalFakeFault @{ Fake = $session; Path = '/api/v2/documents'; DelayMs = 1; Times = 1 } | Out-Null
            Get-DocumentStatus $session | Should -Be 200
            @(Get-PassportalFakeFault -Fake $session).Count | Should -Be 0
            $dropped = Send Add-PassportalFakeFault @{ Fake = $session; Path = '/api/v2/documents*'; Drop = $true }
            { Get-DocumentStatus $session } | Should -Throw
            Remove-PassportalFakeFault -Fake $session -Id $dropped
        }
        deleteFault             = {
            $id = Add-PassportalFakeFault -Fake $session -Path /nowhere -Status 500
            Send Remove-PassportalFakeFault @{ Fake = $session; Id = $id }
            @(Get-PassportalFakeFault -Fake $session).Count | Should -Be 0
        }
        createRateLimit         = {
            $limit = Send Add-PassportalFakeRateLimit @{ Fake = $session; Per = 'token'; Limit = 1; WindowSeconds = 60; Method = 'GET'; Path = '/api/v2/documents' }
            $token = ($session | Get-PassportalFakeToken).access_token
            $uri = "$($session.BaseUrl)/api/v2/documents?pageNum=1"
            [int](Invoke-WebRequest -Uri $uri -Headers @{ 'x-access-token' = $token } -SkipHttpErrorCheck -NoProxy).StatusCode | Should -Be 200
            [int](Invoke-WebRequest -Uri $uri -Headers @{ 'x-access-token' = $token } -SkipHttpErrorCheck -NoProxy).StatusCode | Should -Be 429
            Remove-PassportalFakeRateLimit -Fake $session -Id $limit
        }
        deleteRateLimit         = {
            $limit = Add-PassportalFakeRateLimit -Fake $session -Per key -Limit 5 -WindowSeconds 1
            Send Remove-PassportalFakeRateLimit @{ Fake = $session; Id = $limit }
            @(Get-PassportalFakeRateLimit -Fake $session).Count | Should -Be 0
        }
        applyScenario           = {
            $step = @{ kind = 'fault'; fault = @{ path = '/api/v2/documents'; status = 503; times = 1 } }
            $applied = Send Invoke-PassportalFakeScenario @{ Fake = $session; Name = 'down-once'; Steps = @($step) }
            @((Get-PassportalFakeScenario -Fake $session).applied.id) | Should -Contain $applied
            Get-DocumentStatus $session | Should -Be 503
            Get-DocumentStatus $session | Should -Be 200
        }
        setClock                = {
            (Send Set-PassportalFakeClock @{ Fake = $session; Now = 1800000000 }).now | Should -Be 1800000000
            (Send Set-PassportalFakeClock @{ Fake = $session; AdvanceSeconds = 60 }).now | Should -BeGreaterOrEqual 1800000060
        }
        updateSettings          = {
            $changes = @{
                tokenTtlSeconds = 120; hashEncoding = 'any'; defaultPageNum = 2; maxResultsPerPage = 50
                unknownDetailKeys = 'accept'; successLiterals = 'boolean'; errorSuccess = 'string'
                readShapedDetails = 'reject'; latencyMs = 1; maxBatchItems = 10; maxCreatedDocuments = 5
                validateResponses = $true
            }
            $answered = Send Set-PassportalFakeSetting @{ Fake = $session; Setting = $changes }
            foreach ($key in $changes.Keys) { $answered.$key | Should -Be $changes[$key] -Because $key }
            $now = Get-PassportalFakeSetting -Fake $session
            foreach ($key in $changes.Keys) { $now.$key | Should -Be $changes[$key] -Because $key }
        }
        listSessions            = {
            # One process is a whole fleet: nothing is missing, so -Partial lists the same sessions.
            @(Send Get-PassportalFakeSession @{ Fake = $fake; Partial = $true }).id | Should -Contain $session.Id
        }
        createSession           = {
            $state = Get-PassportalFakeState -Fake $session
            $state.documents = @($state.documents | Select-Object -First 1)
            $file = Join-Path $TestDrive 'one-document.json'
            ConvertTo-Json -InputObject $state -Depth 100 | Set-Content -LiteralPath $file -Encoding utf8
            $label = "fields-$([guid]::NewGuid().ToString('N').Substring(0, 8))"
            $own = Send New-PassportalFakeSession @{ Fake = $fake; OwnKeys = $true; Run = $label; Fixtures = $file; NoExpiry = $true }
            try {
                @((Get-PassportalFakeState -Fake $own).documents).Count | Should -Be 1
                $own.Run | Should -Be $label
                $info = @(Get-PassportalFakeSession -Fake $fake | Where-Object id -EQ $own.Id)
                $info.Count | Should -Be 1
                $info[0].expires | Should -BeFalse
                $info[0].run | Should -Be $label
                @($info[0].ownKeyIds).Count | Should -BeGreaterThan 0
            } finally { $own | Remove-PassportalFakeSession }
        }
        deleteSession           = {
            $own = New-PassportalFakeSession -Fake $fake
            Send Remove-PassportalFakeSession @{ Fake = $fake; Id = $own.Id }
            @(Get-PassportalFakeSession -Fake $fake).id | Should -Not -Contain $own.Id
        }
    }
}

AfterAll {
    if ($session) { $session | Remove-PassportalFakeSession -ErrorAction SilentlyContinue }
    if ($fake) { Stop-PassportalFake $fake }
}

Describe 'every field of every admin operation reaches the fake' {
    BeforeEach {
        $session | Reset-PassportalFake
        $script:sent.Clear()
    }

    It 'sends every field of <Operation>' -ForEach $operations {
        $drivers.ContainsKey($Operation) | Should -BeTrue -Because "a test here must send $Operation's fields"
        & $drivers[$Operation]
        $missing = @($table[$Operation].Fields | ForEach-Object { $_.Name } | Where-Object { -not $script:sent.Contains($_) })
        $missing | Should -BeNullOrEmpty -Because "every field of $Operation is sent by its test"
    }
}
