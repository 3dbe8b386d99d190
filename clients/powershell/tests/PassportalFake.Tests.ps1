# The module against the real fake: what a Pester suite relies on each command to do.
BeforeAll {
    . (Join-Path $PSScriptRoot 'TestFake.ps1')
    $start = Get-TestFakeStart
    $fake = Start-PassportalFake @start
}
AfterAll {
    if ($fake) { Stop-PassportalFake $fake }
}

Describe 'the module' {
    It 'has a manifest Test-ModuleManifest accepts, for Windows PowerShell 5.1 and PowerShell 7' {
        $manifest = Test-ModuleManifest (Join-Path $PSScriptRoot '../PassportalFake/PassportalFake.psd1')
        $manifest.Name | Should -Be 'PassportalFake'
        $manifest.PowerShellVersion | Should -Be ([version]'5.1')
        $manifest.CompatiblePSEditions | Should -Be @('Desktop', 'Core')
        @($manifest.ExportedFunctions.Keys).Count | Should -BeGreaterThan 30
    }

    It 'exports commands with approved verbs only' {
        $approved = (Get-Verb).Verb
        foreach ($command in (Get-Module PassportalFake).ExportedFunctions.Values) {
            $approved | Should -Contain $command.Verb -Because "$($command.Name) must use an approved verb"
        }
    }

    It 'has comment-based help on every command: a synopsis, an example, every parameter described' {
        foreach ($command in Get-Command -Module PassportalFake) {
            $help = Get-Help $command.Name -Full
            $help.Synopsis | Should -Not -BeNullOrEmpty -Because "$($command.Name) needs a synopsis"
            $help.Synopsis | Should -Not -Match "^\s*$([regex]::Escape($command.Name))" -Because "$($command.Name) needs a written synopsis"
            @($help.examples.example).Count | Should -BeGreaterThan 0 -Because "$($command.Name) needs an example"
            $common = [System.Management.Automation.PSCmdlet]::CommonParameters + [System.Management.Automation.PSCmdlet]::OptionalCommonParameters
            foreach ($name in $command.Parameters.Keys | Where-Object { $common -notcontains $_ }) {
                $parameter = @($help.parameters.parameter) | Where-Object name -eq $name
                ($parameter.description | Out-String).Trim() | Should -Not -BeNullOrEmpty -Because "$($command.Name) -$name needs a description"
            }
        }
    }

    It 'parses as Windows PowerShell 5.1 syntax: no ??, ?:, && or || pipeline chains, no ::new on generic types' {
        $files = Get-ChildItem (Join-Path $PSScriptRoot '../PassportalFake') -Recurse -Include *.ps1, *.psm1
        foreach ($file in $files) {
            $tokens = $null; $errors = $null
            [System.Management.Automation.Language.Parser]::ParseFile($file.FullName, [ref]$tokens, [ref]$errors) | Out-Null
            $errors | Should -BeNullOrEmpty
            $kinds = $tokens | ForEach-Object { $_.Kind.ToString() }
            $kinds | Should -Not -Contain 'QuestionQuestion' -Because "$($file.Name): ?? is PowerShell 7 only"
            $kinds | Should -Not -Contain 'QuestionMark' -Because "$($file.Name): ?: is PowerShell 7 only"
            $kinds | Should -Not -Contain 'AndAnd' -Because "$($file.Name): && is PowerShell 7 only"
            $kinds | Should -Not -Contain 'OrOr' -Because "$($file.Name): || is PowerShell 7 only"
            (Get-Content -Raw $file.FullName) | Should -Not -Match '-SkipHttpErrorCheck|-AsHashtable|ForEach-Object -Parallel' -Because "$($file.Name) must run on 5.1"
        }
    }
}

Describe 'New-PassportalHash' {
    It 'is the lower-case hex HMAC-SHA256 of the content keyed with the secret' {
        New-PassportalHash -Secret secret -Content api-content-hash | Should -BeExactly 'adb7d285c09c582d25e57ab006b0a5607e317fdd90d56d782ae602f521ec6e5f'
    }
}

Describe 'Start-PassportalFake and Stop-PassportalFake' {
    It 'answers BaseUrl, AdminUrl and the default key, on a fake whose health answers' {
        $fake.BaseUrl | Should -Match '^http://127\.0\.0\.1:\d+$'
        $fake.AdminUrl | Should -Be "$($fake.BaseUrl)/__admin"
        $fake.KeyId | Should -Be '375f86c493d3b504cbab9bf6a2f61d3f0b3ac334884bb150d193cfec08077bd0'
        $fake.Secret | Should -Be 'fake-secret-1-0799cc6103334c167a65e28e'
        (Get-PassportalFakeHealth -Fake $fake).status | Should -Be 'ok'
        (Get-PassportalFakeHealth -Url $fake.BaseUrl).status | Should -Be 'ok'
    }

    It "passes -Option to the fake by createMockServer's names" {
        $other = Start-PassportalFake @start -Option @{ tokenTtlSeconds = 120 }
        try {
            ($other | Get-PassportalFakeSetting).tokenTtlSeconds | Should -Be 120
        } finally {
            Stop-PassportalFake $other
        }
        { Get-PassportalFakeHealth -Url $other.BaseUrl -ErrorAction Stop } | Should -Throw '*failed*'
    }

    It 'fails when its own node dies, even when another process answers on the port it asked for' {
        # The port is taken by the fake of BeforeAll, whose health answers 200 there.
        $port = ([uri]$fake.BaseUrl).Port
        $err = { Start-PassportalFake -UseNode -Port $port -TimeoutSeconds 60 } | Should -Throw -PassThru
        $err.Exception.Message | Should -BeLike '*did not start*EADDRINUSE*'
        (Get-PassportalFakeHealth -Fake $fake).status | Should -Be 'ok'
    }

    It "takes the URL the fake announces: its own process answers there, on a port no one chose for it beforehand" {
        $other = Start-PassportalFake -UseNode
        try {
            $other.BaseUrl | Should -Not -Be $fake.BaseUrl
            $other.Process.HasExited | Should -BeFalse
            # The fake announced this URL itself: its log's listening line names it.
            $line = Get-Content -LiteralPath (Join-Path $other.LogDirectory 'stdout.log') | Where-Object { $_ -match 'listening on' } | Select-Object -First 1
            ($line | ConvertFrom-Json).url | Should -Be $other.BaseUrl
            ($other | Get-PassportalFakeSetting) | Should -Not -BeNullOrEmpty
        } finally {
            Stop-PassportalFake $other
        }
        $other.Process.HasExited | Should -BeTrue
    }

    It "shows the fake's own error when it cannot start" {
        $bad = Join-Path $TestDrive 'broken.json'
        Set-Content -LiteralPath $bad -Value '{ "documents": 5 }'
        { Start-PassportalFake @start -Fixtures $bad -TimeoutSeconds 60 } | Should -Throw '*did not start*documents*'
    }
}

Describe 'Get-PassportalFakeToken' {
    It 'sends JSON by default, as the documentation shows it: no notice; form-encoded with -Form, with its notice' {
        $session = New-PassportalFakeSession -Fake $fake
        try {
            ($session | Get-PassportalFakeToken).access_token | Should -Match '^\S{20,}$'
            ($session | Get-PassportalFakeToken -Json).access_token | Should -Match '^\S{20,}$'
            @($session | Get-PassportalFakeNotice).Count | Should -Be 0
            $calls = @($session | Get-PassportalFakeRequest -Path /api/v2/auth/client_token)
            $calls.Count | Should -Be 2
            ($session | Get-PassportalFakeToken -Form).access_token | Should -Match '^\S{20,}$'
            $notices = @($session | Get-PassportalFakeNotice)
            $notices.Count | Should -Be 1
            $notices[0].notices[0].code | Should -Be 'formEncodedBody'
            { $session | Get-PassportalFakeToken -Form -Json } | Should -Throw '*not both*'
        } finally {
            $session | Remove-PassportalFakeSession
        }
    }

    It "throws the fake's message on a wrong secret, without the secret" {
        $err = { Get-PassportalFakeToken -Fake $fake -Secret 'not-the-secret' } | Should -Throw -PassThru
        $err.Exception.Message | Should -Match '^The token call answered 401'
        $err.Exception.Message | Should -Not -Match 'not-the-secret'
    }
}

Describe 'a session, its faults, clock, journal and settings' {
    BeforeAll {
        $session = New-PassportalFakeSession -Fake $fake
        $token = ($session | Get-PassportalFakeToken).access_token
    }
    AfterAll {
        $session | Remove-PassportalFakeSession
    }
    BeforeEach {
        $session | Clear-PassportalFakeFault
    }

    It 'is isolated: its own URL, its journal apart from the root' {
        $session.BaseUrl | Should -Be "$($fake.BaseUrl)/sessions/$($session.Id)"
        (Invoke-DocumentsList $session $token).Status | Should -Be 200
        @($session | Get-PassportalFakeRequest -Path /api/v2/documents).Count | Should -Be 1
        @(Get-PassportalFakeRequest -Fake $fake -Path /api/v2/documents).Count | Should -Be 0
        (Get-PassportalFakeSession -Fake $fake).id | Should -Contain $session.Id
    }

    It 'serves a fault once, then answers again; the fault body keeps its depth' {
        $deep = @{ error = @{ detail = @{ reason = @{ code = @{ text = 'deep' } } } } }
        $id = $session | Add-PassportalFakeFault -Method GET -Path /api/v2/documents -Status 503 -Times 1 -Body $deep
        $id | Should -Not -BeNullOrEmpty
        $failed = Invoke-DocumentsList $session $token
        $failed.Status | Should -Be 503
        ($failed.Body | ConvertFrom-Json).error.detail.reason.code.text | Should -Be 'deep'
        (Invoke-DocumentsList $session $token).Status | Should -Be 200
    }

    It 'lists faults and removes them through the pipeline' {
        $session | Add-PassportalFakeFault -Path '/api/v2/documents*' -DelayMs 1 | Out-Null
        $session | Add-PassportalFakeFault -Method PATCH -Status 500 | Out-Null
        @($session | Get-PassportalFakeFault).Count | Should -Be 2
        $session | Get-PassportalFakeFault | Remove-PassportalFakeFault
        @($session | Get-PassportalFakeFault).Count | Should -Be 0
    }

    It "throws a clear error naming the call and the fake's message on a 4xx" {
        $err = { Remove-PassportalFakeFault -Session $session -Id no-such-fault -ErrorAction Stop } | Should -Throw -PassThru
        $err.Exception.Message | Should -BeLike "DELETE $($session.AdminUrl)/faults/no-such-fault answered 404: *no-such-fault*"
    }

    It 'expires tokens by its clock' {
        $fresh = ($session | Get-PassportalFakeToken).access_token
        (Invoke-DocumentsList $session $fresh).Status | Should -Be 200
        $before = ($session | Get-PassportalFakeClock).now
        ($session | Set-PassportalFakeClock -AdvanceSeconds 3600).now | Should -BeGreaterOrEqual ($before + 3600)
        (Invoke-DocumentsList $session $fresh).Status | Should -Be 401
        $session | Reset-PassportalFake
        ($session | Get-PassportalFakeClock).offsetSeconds | Should -Be 0
    }

    It 'revokes tokens' {
        $fresh = ($session | Get-PassportalFakeToken).access_token
        ($session | Revoke-PassportalFakeToken) | Should -BeGreaterThan 0
        (Invoke-DocumentsList $session $fresh).Status | Should -Be 401
    }

    It 'reads and clears the journal: filters, one entry by id' {
        $session | Clear-PassportalFakeRequest
        $fresh = ($session | Get-PassportalFakeToken).access_token
        Invoke-DocumentsList $session $fresh 'pageNum=1&resultsPerPage=2' | Out-Null
        $entries = @($session | Get-PassportalFakeRequest -Method GET)
        $entries.Count | Should -Be 1
        $entries[0].path | Should -Be '/api/v2/documents'
        ($session | Get-PassportalFakeRequest -Id $entries[0].id).status | Should -Be 200
        @($session | Get-PassportalFakeRequest -Method POST).Count | Should -Be 1
        $session | Clear-PassportalFakeRequest
        @($session | Get-PassportalFakeRequest).Count | Should -Be 0
    }

    It 'changes settings at run time' {
        ($session | Set-PassportalFakeSetting @{ maxResultsPerPage = 2 }).maxResultsPerPage | Should -Be 2
        $fresh = ($session | Get-PassportalFakeToken).access_token
        $page = (Invoke-DocumentsList $session $fresh 'pageNum=1&resultsPerPage=50').Body | ConvertFrom-Json
        @($page.results).Count | Should -Be 2
        ($session | Get-PassportalFakeSetting).maxResultsPerPage | Should -Be 2
        $session | Reset-PassportalFake
    }

    It 'loads a fixture set given as an object, written as JSON with its full depth, and from a file' {
        $set = @{
            organizations = @(@{ id = 1; name = 'Acme MSP' })
            clients       = @(@{ id = 41001; organizationId = 1; name = 'Dundee Office Ltd' })
            documents     = @(@{
                    id = 101101; client_id = 41001; templateId = 5001; label = 'Dundee Office'; description = ''; customId = ''
                    details = @{ address_1 = @{ name = 'Address 1'; description = ''; value = @{ type = 'string'; text = 'Deep St' } } }
                })
        }
        $session | Import-PassportalFakeFixture -FixtureSet $set | Out-Null
        $fresh = ($session | Get-PassportalFakeToken).access_token
        $document = Invoke-RestMethod "$($session.BaseUrl)/api/v2/documents/101101" -Headers @{ 'x-access-token' = $fresh } -NoProxy
        ($document | ConvertTo-Json -Depth 20) | Should -Match 'Deep St'
        $file = Join-Path $TestDrive 'set.json'
        Set-Content -LiteralPath $file -Value (ConvertTo-Json $set -Depth 20)
        $session | Import-PassportalFakeFixture -Path $file | Out-Null
        $err = { $session | Import-PassportalFakeFixture -FixtureSet @{ documents = 5 } } | Should -Throw -PassThru
        $err.Exception.Message | Should -BeLike 'PUT *answered 400*documents*'
        { $session | Import-PassportalFakeFixture -Path (Join-Path $TestDrive 'missing.json') } | Should -Throw '*Fixture set not found*'
        $suite = Join-Path $PSScriptRoot '../../../examples/fixtures/suite'
        $session | Import-PassportalFakeFixture -Path $suite | Out-Null
        @(($session | Get-PassportalFakeState).apiKeys).keyId | Should -Contain 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90'
        $own = New-PassportalFakeSession -Fake $fake -Fixtures $suite
        try {
            $own.KeyId | Should -Be 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90'
        } finally {
            $own | Remove-PassportalFakeSession
        }
    }

    It 'gives each session of -OwnKeys its own key, which reaches it at the root URL' {
        $own = New-PassportalFakeSession -Fake $fake -OwnKeys
        try {
            $own.KeyId | Should -Not -Be $fake.KeyId
            $rootToken = (Get-PassportalFakeToken -Fake $fake -KeyId $own.KeyId -Secret $own.Secret).access_token
            (Invoke-DocumentsList $fake $rootToken).Status | Should -Be 200
            @($own | Get-PassportalFakeRequest -Path /api/v2/documents).Count | Should -Be 1
        } finally {
            $own | Remove-PassportalFakeSession
        }
        (Get-PassportalFakeSession -Fake $fake).id | Should -Not -Contain $own.Id
    }
}

Describe 'violations and the verdict' {
    BeforeAll {
        $session = New-PassportalFakeSession -Fake $fake
        $token = ($session | Get-PassportalFakeToken).access_token
    }
    AfterAll {
        $session | Remove-PassportalFakeSession
    }
    BeforeEach {
        $session | Reset-PassportalFake
    }

    It 'passes a session whose client kept the contract' {
        (Invoke-DocumentsList $session $token).Status | Should -Be 200
        $session | Should -HaveNoPassportalViolation
        $session | Assert-PassportalFakeNoViolation
        @($session | Get-PassportalFakeViolation).Count | Should -Be 0
    }

    It 'fails naming method, path, location and message of each violation, never the token or the secret' {
        $token = ($session | Get-PassportalFakeToken).access_token
        Invoke-DocumentsList $session $token 'pageNum=0' | Out-Null
        $records = @($session | Get-PassportalFakeViolation)
        $records.Count | Should -Be 1
        $records[0].violations[0].location | Should -Be 'query.pageNum'
        $err = { $session | Should -HaveNoPassportalViolation } | Should -Throw -PassThru
        # Each check judges what came after the previous one: the same request again for Assert.
        Invoke-DocumentsList $session $token 'pageNum=0' | Out-Null
        $asserted = { $session | Assert-PassportalFakeNoViolation } | Should -Throw -PassThru
        foreach ($message in @($err.Exception.Message, $asserted.Exception.Message)) {
            $message | Should -Match 'GET /api/v2/documents'
            $message | Should -Match 'query\.pageNum: needs to be an integer'
            $message | Should -Not -Match ([regex]::Escape($token))
            $message | Should -Not -Match ([regex]::Escape($session.Secret))
        }
        Invoke-DocumentsList $session $token 'pageNum=0' | Out-Null
        $session | Should -Not -HaveNoPassportalViolation
    }

    It 'offers the Pester 6 assertion Should-HaveNoPassportalViolation under Pester 6, the Should operator under both' {
        (Get-ShouldOperator | Where-Object Name -eq 'HaveNoPassportalViolation') | Should -Not -BeNullOrEmpty
        if (Get-Command New-ShouldAssertion -ErrorAction SilentlyContinue) {
            $session | Should-HaveNoPassportalViolation
            Invoke-DocumentsList $session $token 'pageNum=0' | Out-Null
            { $session | Should-HaveNoPassportalViolation } | Should -Throw '*query.pageNum*'
        } else {
            Get-Command Should-HaveNoPassportalViolation -ErrorAction SilentlyContinue | Should -BeNullOrEmpty
        }
    }

    It 'writes the report as JUnit XML a CI reads, and as an object' {
        Invoke-DocumentsList $session $token | Out-Null
        $file = $session | Get-PassportalFakeReport -Format junit -OutFile (Join-Path $TestDrive 'fake.junit.xml')
        $xml = [xml](Get-Content -Raw $file.FullName)
        $xml.testsuites.name | Should -Match $session.Id
        ($session | Get-PassportalFakeReport).operations | Should -Not -BeNullOrEmpty
        ($session | Get-PassportalFakeReport -Format markdown) | Should -Match '#'
    }
}

Describe 'Get-PassportalFakeRequest reads the whole journal' {
    BeforeAll {
        $session = New-PassportalFakeSession -Fake $fake
        # 250 requests: more than the fake's page (100) and the module's (200).
        $client = New-Object System.Net.Http.HttpClient
        for ($i = 1; $i -le 250; $i++) {
            $client.GetAsync("$($session.BaseUrl)/api/v2/documents/$i").GetAwaiter().GetResult().Dispose()
        }
        $client.Dispose()
    }
    AfterAll {
        $session | Remove-PassportalFakeSession
    }

    It 'returns every entry by default, oldest first, each once' {
        $entries = @($session | Get-PassportalFakeRequest)
        $entries.Count | Should -Be 250
        $entries[0].path | Should -Be '/api/v2/documents/1'
        $entries[-1].path | Should -Be '/api/v2/documents/250'
        @($entries.id | Sort-Object -Unique).Count | Should -Be 250
        @($session | Get-PassportalFakeRequest -Order desc)[0].path | Should -Be '/api/v2/documents/250'
        @($session | Get-PassportalFakeRequest -Order desc).Count | Should -Be 250
    }

    It 'answers the total with -TotalCount' {
        $session | Get-PassportalFakeRequest -TotalCount | Should -Be 250
        $session | Get-PassportalFakeRequest -Path '/api/v2/documents/1*' -TotalCount | Should -Be 111
    }

    It 'says it stopped when -Limit cuts the journal, naming how many more and where to read on' {
        $entries = @($session | Get-PassportalFakeRequest -Limit 120 -WarningVariable warned -WarningAction SilentlyContinue)
        $entries.Count | Should -Be 120
        "$warned" | Should -BeLike '*returned 120 of 250 matching journal entries (-Limit 120): 130 more, which -Since * reads.*'
        $rest = @($session | Get-PassportalFakeRequest -Since $entries[-1].id -WarningVariable none)
        $rest.Count | Should -Be 130
        $rest[0].path | Should -Be '/api/v2/documents/121'
        @($none).Count | Should -Be 0
    }

    It 'skips with -Offset and starts after a journal id with -Since' {
        $entries = @($session | Get-PassportalFakeRequest -Offset 240)
        $entries.Count | Should -Be 10
        $entries[0].path | Should -Be '/api/v2/documents/241'
        $first = @($session | Get-PassportalFakeRequest -Limit 1 -WarningAction SilentlyContinue)[0]
        @($session | Get-PassportalFakeRequest -Since $first.id).Count | Should -Be 249
        @($session | Get-PassportalFakeRequest -Since $first.id -Offset 9 -Limit 1 -WarningAction SilentlyContinue)[0].path | Should -Be '/api/v2/documents/11'
    }
}

Describe 'secrets never in default output' {
    BeforeAll {
        $adminToken = 'admin-token-' + [guid]::NewGuid().ToString('N')
        $guarded = Start-PassportalFake @start -AdminToken $adminToken
        $session = New-PassportalFakeSession -Fake $guarded -OwnKeys
        $session | Add-PassportalFakeFault -Status 503 -Path /api/v2/documents | Out-Null
        $secrets = @($adminToken, $guarded.Secret, $session.Secret)
        # Every way PowerShell shows an object without being asked for a property by name.
        $render = {
            param($Value)
            $Value | Out-String -Width 500
            $Value | Format-Table | Out-String -Width 500
            $Value | Format-Table -AutoSize | Out-String -Width 500
            $Value | Format-List | Out-String -Width 500
            $Value | Format-Wide | Out-String -Width 500
            foreach ($item in @($Value)) { "$item" }
        }
    }
    AfterAll {
        if ($guarded) { Stop-PassportalFake $guarded }
    }

    It 'keeps the admin token and the secrets readable as properties' {
        $guarded.AdminToken | Should -Be $adminToken
        $session.AdminToken | Should -Be $adminToken
        $guarded.Secret | Should -Not -BeNullOrEmpty
        $session.Secret | Should -Be $session.Keys[0].Secret
        $session.Keys[0].Secret | Should -Not -BeNullOrEmpty
    }

    It 'shows <Name> without them in default, table, list and wide output, and as a string' -ForEach @(
        @{ Name = 'the fake'; Value = { $guarded }; Shows = { $guarded.BaseUrl } }
        @{ Name = 'a session'; Value = { $session }; Shows = { $session.BaseUrl } }
        @{ Name = "a session's keys"; Value = { $session.Keys }; Shows = { $session.KeyId } }
        @{ Name = 'the sessions listed'; Value = { Get-PassportalFakeSession -Fake $guarded }; Shows = { $session.BaseUrl } }
        @{ Name = 'the faults listed'; Value = { $session | Get-PassportalFakeFault }; Shows = { $session.BaseUrl } }
        @{ Name = 'the fake, then a session, in one output'; Value = { $guarded; $session; $session.Keys }; Shows = { $session.BaseUrl } }
    ) {
        $objects = @(& $Value)
        $objects.Count | Should -BeGreaterThan 0
        $text = (& $render $objects) -join "`n"
        $text | Should -Match ([regex]::Escape((& $Shows)))
        foreach ($secret in $secrets) {
            $text | Should -Not -Match ([regex]::Escape($secret))
        }
    }
}
