# The module's errors as PowerShell users handle them: stable ids and fitting categories; a
# refused connection and an unknown item are non-terminating (-ErrorAction, -ErrorVariable, the
# next piped item still tried); a refusal of what was asked stops the command.
BeforeAll {
    . (Join-Path $PSScriptRoot 'TestFake.ps1')
    $start = Get-TestFakeStart
    $fake = Start-PassportalFake @start
    $session = New-PassportalFakeSession -Fake $fake
    # A port nothing listens on: one taken from the OS and let go.
    $listener = [System.Net.Sockets.TcpListener]::new([System.Net.IPAddress]::Loopback, 0)
    $listener.Start()
    $closed = "http://127.0.0.1:$($listener.LocalEndpoint.Port)"
    $listener.Stop()
}
AfterAll {
    if ($session) { $session | Remove-PassportalFakeSession }
    if ($fake) { Stop-PassportalFake $fake }
}

Describe 'a refused connection' {
    It 'is a ConnectionError that -ErrorAction SilentlyContinue silences and -ErrorVariable holds once' {
        $answer = Get-PassportalFakeHealth -Url $closed -ErrorAction SilentlyContinue -ErrorVariable failed
        $answer | Should -BeNullOrEmpty
        $failed.Count | Should -Be 1
        $failed[0].FullyQualifiedErrorId | Should -Be 'PassportalFake.ConnectionFailed,Get-PassportalFakeHealth'
        $failed[0].CategoryInfo.Category | Should -Be 'ConnectionError'
        $failed[0].Exception.Message | Should -BeLike "GET $closed/__admin/health failed: *is the fake running*"
    }

    It 'stops the command with -ErrorAction Stop' {
        $err = { Get-PassportalFakeFault -Url $closed -ErrorAction Stop } | Should -Throw -PassThru
        $err.FullyQualifiedErrorId | Should -Be 'PassportalFake.ConnectionFailed,Get-PassportalFakeFault'
    }

    It 'leaves the other piped fakes served' {
        $answers = @($closed, $session.BaseUrl) | Get-PassportalFakeHealth -ErrorAction SilentlyContinue -ErrorVariable failed
        @($answers).Count | Should -Be 1
        $failed.Count | Should -Be 1
    }
}

Describe 'an unknown item' {
    BeforeEach { $session | Reset-PassportalFake }

    It 'is an ObjectNotFound for that item; the next piped item is still removed' {
        $known = $session | Add-PassportalFakeFault -Path /nowhere -Status 500
        $items = @(
            [pscustomobject]@{ Id = 'no-such-fault'; PassportalFake = $session }
            [pscustomobject]@{ Id = $known; PassportalFake = $session }
        )
        $items | Remove-PassportalFakeFault -ErrorAction SilentlyContinue -ErrorVariable failed
        @($session | Get-PassportalFakeFault).Count | Should -Be 0
        $failed.Count | Should -Be 1
        $failed[0].FullyQualifiedErrorId | Should -Be 'PassportalFake.Http404,Remove-PassportalFakeFault'
        $failed[0].CategoryInfo.Category | Should -Be 'ObjectNotFound'
        $failed[0].TargetObject | Should -BeLike '*/faults/no-such-fault'
    }

    It 'is written to the error stream, not thrown, with -ErrorAction Continue' {
        # (run-pester.ps1 sets ErrorActionPreference to Stop, which would make it stop the test.)
        $failed = Remove-PassportalFakeRateLimit -Session $session -Id no-such-limit -ErrorAction Continue 2>&1
        @($failed).Count | Should -Be 1
        $failed[0] | Should -BeOfType [System.Management.Automation.ErrorRecord]
        $failed[0].CategoryInfo.Category | Should -Be 'ObjectNotFound'
    }
}

Describe 'a refusal of what was asked' {
    It 'stops the command whatever -ErrorAction says, with the status in its id' {
        $err = { $session | Import-PassportalFakeFixture -FixtureSet @{ documents = 5 } -ErrorAction SilentlyContinue } | Should -Throw -PassThru
        $err.FullyQualifiedErrorId | Should -Be 'PassportalFake.Http400'
        $err.CategoryInfo.Category | Should -Be 'InvalidArgument'
    }

    It 'names a field out of the spec before sending it' {
        $err = { $session | Set-PassportalFakeSetting -Setting @{ tokenTtlSeconds = 0 } } | Should -Throw -PassThru
        $err.FullyQualifiedErrorId | Should -Be 'PassportalFake.InvalidField,Set-PassportalFakeSetting'
        $err.CategoryInfo.Category | Should -Be 'InvalidArgument'
        $err.Exception.Message | Should -BeLike '*tokenTtlSeconds must be at least 1*'
    }

    It 'without a fake is an InvalidArgument' {
        $module = Get-Module PassportalFake
        $saved = & $module { $script:CurrentFake }
        try {
            & $module { $script:CurrentFake = $null }
            $err = { Get-PassportalFakeState } | Should -Throw -PassThru
            $err.FullyQualifiedErrorId | Should -Be 'PassportalFake.NoFake'
            $err.CategoryInfo.Category | Should -Be 'InvalidArgument'
        } finally {
            & $module { param($f) $script:CurrentFake = $f } $saved
        }
    }
}

Describe 'the token call' {
    It "stops with the fake's message, a stable id and PermissionDenied when the key is refused" {
        $err = { $session | Get-PassportalFakeToken -Secret 'not-the-secret' -ErrorAction SilentlyContinue } | Should -Throw -PassThru
        $err.FullyQualifiedErrorId | Should -Be 'PassportalFake.Http401,Get-PassportalFakeToken'
        $err.CategoryInfo.Category | Should -Be 'PermissionDenied'
        $err.Exception.Message | Should -BeLike 'The token call answered 401: *'
    }

    It 'stops with a ConnectionError when nothing answers' {
        $err = { Get-PassportalFakeToken -Url $closed -KeyId key -Secret secret } | Should -Throw -PassThru
        $err.FullyQualifiedErrorId | Should -Be 'PassportalFake.ConnectionFailed,Get-PassportalFakeToken'
        $err.CategoryInfo.Category | Should -Be 'ConnectionError'
        $err.Exception.Message | Should -BeLike "The token call (POST $closed/api/v2/auth/client_token) failed: *is the fake running*"
    }
}
