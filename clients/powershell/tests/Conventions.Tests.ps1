# What PowerShell users look for in a module, checked on the module as loaded: output types
# declared, a typed -Fake that help names, the manifest's gallery data, which fake
# Start-PassportalFake started, and the parameters' [Validate*] attributes as PowerShell built
# them, against the spec's bounds.
BeforeAll {
    . (Join-Path $PSScriptRoot 'TestFake.ps1')
}

Describe 'the module as PowerShell users read it' {
    It 'declares [OutputType] on every Get- and New- command' {
        $commands = @(Get-Command -Module PassportalFake | Where-Object Name -Match '^(Get|New)-')
        $commands.Count | Should -BeGreaterThan 15
        @($commands | Where-Object { $_.OutputType.Count -eq 0 } | ForEach-Object Name) | Should -BeNullOrEmpty
    }

    It 'types every -Fake as PassportalFakeTarget, and help names the type' {
        $commands = @(Get-Command -Module PassportalFake | Where-Object { $_.Parameters.ContainsKey('Fake') -and $_.Name -ne 'Stop-PassportalFake' })
        $commands.Count | Should -BeGreaterThan 30
        @($commands | Where-Object { $_.Parameters['Fake'].ParameterType.Name -ne 'PassportalFakeTarget' } | ForEach-Object Name) | Should -BeNullOrEmpty
        $help = Get-Help Get-PassportalFakeState -Parameter Fake
        $help.type.name | Should -Be 'PassportalFakeTarget'
    }

    It "gives the gallery a licence and release notes" {
        $manifest = Import-PowerShellDataFile -LiteralPath (Join-Path $PSScriptRoot '../PassportalFake/PassportalFake.psd1')
        $manifest.PrivateData.PSData.LicenseUri | Should -Match '^https://'
        $manifest.PrivateData.PSData.ReleaseNotes | Should -Not -BeNullOrEmpty
    }
}

Describe '-Fake takes a fake, a session or a URL, as it is given' {
    BeforeAll {
        $start = Get-TestFakeStart
        $fake = Start-PassportalFake @start
        $session = New-PassportalFakeSession -Fake $fake
    }
    AfterAll {
        if ($session) { $session | Remove-PassportalFakeSession }
        if ($fake) { Stop-PassportalFake $fake }
    }

    It 'a fake or a session, named or piped' {
        (Get-PassportalFakeHealth -Fake $fake).status | Should -Be 'ok'
        ($session | Get-PassportalFakeHealth).status | Should -Be 'ok'
        ($session | Get-PassportalFakeToken).access_token | Should -Not -BeNullOrEmpty
        (Get-PassportalFakeToken -Session $session).access_token | Should -Not -BeNullOrEmpty
    }

    It "a base URL, as a string or a [uri], the root's or a session's, with or without /__admin" {
        (Get-PassportalFakeHealth -Url $fake.BaseUrl).status | Should -Be 'ok'
        (Get-PassportalFakeHealth -Url ([uri]"$($session.BaseUrl)/")).status | Should -Be 'ok'
        ("$($session.BaseUrl)/__admin" | Get-PassportalFakeState).apiKeys[0].keyId | Should -Be $session.KeyId
        $other = Get-PassportalFakeSession -Url "$($session.BaseUrl)/__admin" | Where-Object id -EQ $session.Id
        $other.id | Should -Be $session.Id
    }

    It 'any object with a BaseUrl, and the fake a piped item came from' {
        ([pscustomobject]@{ BaseUrl = $session.BaseUrl } | Get-PassportalFakeHealth).status | Should -Be 'ok'
        $session | Add-PassportalFakeFault -Path /api/v2/nothing -Status 500 | Out-Null
        $listed = @($session | Get-PassportalFakeFault)
        $listed.Count | Should -Be 1
        $listed[0].PassportalFake.BaseUrl | Should -Be $session.BaseUrl
        $listed | Remove-PassportalFakeFault
        @($session | Get-PassportalFakeFault).Count | Should -Be 0
        @($fake | Get-PassportalFakeFault).Count | Should -Be 0
    }

    It 'refuses anything else as an argument PowerShell cannot convert, saying what it takes' {
        $err = { Get-PassportalFakeState -Fake ([pscustomobject]@{ Name = 'not a fake' }) } | Should -Throw -PassThru
        $err.FullyQualifiedErrorId | Should -Be 'ParameterArgumentTransformationError,Get-PassportalFakeState'
        $err.Exception.Message | Should -BeLike '*Not a fake, a session or a URL: an object with a BaseUrl property is expected*'
    }
}

Describe 'Start-PassportalFake says which fake it started' {
    It 'in a verbose message and on the fake' {
        $messages = $null
        $fake = Start-PassportalFake -UseNode -Verbose 4>&1 | Tee-Object -Variable messages | Where-Object { $_ -isnot [System.Management.Automation.VerboseRecord] }
        try {
            $fake.Source | Should -BeLike "this repository's build (*start.js)"
            @($messages | Where-Object { $_ -is [System.Management.Automation.VerboseRecord] } | ForEach-Object Message) | Should -Contain "Start-PassportalFake: starting $($fake.Source)"
        } finally { Stop-PassportalFake $fake }
    }
}

Describe "the commands' [Validate*] attributes, read by PowerShell itself, are the spec's bounds" {
    # The first stage reads the param blocks as text (test/clients/powershell-fields.test.ts);
    # this reads the attributes PowerShell built from them, against the generated table.
    BeforeAll {
        $module = Get-Module PassportalFake
        $table = & $module { $script:SpecFields }
        $names = & $module { $script:FieldOfParameter }
        $exceptions = & $module { $script:FieldExceptions }
    }

    It 'finds every bound of every field on its parameter' {
        $drift = @()
        $checked = 0
        foreach ($operation in $table.Keys) {
            foreach ($command in $table[$operation].Commands) {
                $parameters = (Get-Command $command).Parameters
                foreach ($field in $table[$operation].Fields) {
                    foreach ($parameter in $parameters.Values) {
                        $mapped = $parameter.Name.Substring(0, 1).ToLowerInvariant() + $parameter.Name.Substring(1)
                        if ($names.ContainsKey($command) -and $names[$command].ContainsKey($parameter.Name)) { $mapped = $names[$command][$parameter.Name] }
                        if ($mapped -cne $field.Name) { continue }
                        if ($parameter.ParameterType -in @([switch], [hashtable])) { continue }
                        $exempt = ''
                        if ($exceptions.ContainsKey($command) -and $exceptions[$command].ContainsKey($parameter.Name)) { $exempt = $exceptions[$command][$parameter.Name].Split(':')[0] }
                        $checked++
                        $range = $parameter.Attributes | Where-Object { $_ -is [System.Management.Automation.ValidateRangeAttribute] }
                        $length = $parameter.Attributes | Where-Object { $_ -is [System.Management.Automation.ValidateLengthAttribute] }
                        $notEmpty = $parameter.Attributes | Where-Object { $_ -is [System.Management.Automation.ValidateNotNullOrEmptyAttribute] }
                        $set = $parameter.Attributes | Where-Object { $_ -is [System.Management.Automation.ValidateSetAttribute] }
                        $max = $null
                        if ($range) { $max = $parameter.ParameterType::MaxValue }
                        $seen = @{
                            Minimum   = if ($range) { [double]$range.MinRange } else { $null }
                            Maximum   = if ($range -and $range.MaxRange -ne $max) { [double]$range.MaxRange } else { $null }
                            MinLength = if ($length -and $length.MinLength -gt 0) { $length.MinLength } elseif ($notEmpty) { 1 } else { $null }
                            MaxLength = if ($length -and $length.MaxLength -ne [int]::MaxValue) { $length.MaxLength } else { $null }
                            Enum      = if ($set) { (@($set.ValidValues) | Sort-Object) -join ',' } else { $null }
                        }
                        $wanted = @{
                            Minimum   = if ($field.ContainsKey('Minimum')) { [double]$field.Minimum } else { $null }
                            Maximum   = if ($field.ContainsKey('Maximum')) { [double]$field.Maximum } else { $null }
                            MinLength = if ($field.ContainsKey('MinLength') -and $field.MinLength -gt 0) { $field.MinLength } else { $null }
                            MaxLength = if ($field.ContainsKey('MaxLength')) { $field.MaxLength } else { $null }
                            Enum      = if ($field.ContainsKey('Enum')) { (@($field.Enum | ForEach-Object { [string]$_ }) | Sort-Object) -join ',' } else { $null }
                        }
                        foreach ($bound in $wanted.Keys) {
                            if ($exempt -match "\b$bound\b") { continue }
                            if ("$($wanted[$bound])" -ne "$($seen[$bound])") {
                                $drift += "$command -$($parameter.Name) ($operation.$($field.Name)) $bound`: the spec says '$($wanted[$bound])', the attribute '$($seen[$bound])'"
                            }
                        }
                    }
                }
            }
        }
        $checked | Should -BeGreaterThan 25
        $drift | Should -BeNullOrEmpty
    }
}
