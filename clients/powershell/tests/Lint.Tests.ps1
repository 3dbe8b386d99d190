# The PSScriptAnalyzer rules that apply to this module, written as tests on its syntax tree (the
# Gallery's analyzer is not installable here, and the rules are few): approved verbs, help for every
# command and parameter, ShouldProcess called where it is declared and declared where state
# changes, no aliases or Write-Host in the module's code, no trailing whitespace, and every
# suppression saying why; and two of the module's own: functions short enough to read whole, and
# one function that sends HTTP.
BeforeDiscovery {
    $root = Join-Path $PSScriptRoot '../PassportalFake'
    $files = @(Get-ChildItem -LiteralPath $root -Recurse -Include *.ps1, *.psm1 | ForEach-Object { @{ Name = $_.Name; Path = $_.FullName } })
}

BeforeAll {
    $root = Join-Path $PSScriptRoot '../PassportalFake'
    $manifest = Import-PowerShellDataFile -LiteralPath (Join-Path $root 'PassportalFake.psd1')
    $exported = @($manifest.FunctionsToExport)

    # Every function of the module, with its file and the lines that hold its code (not blank, not
    # only a comment: comment-based help is not counted).
    $script:functions = foreach ($file in Get-ChildItem -LiteralPath $root -Recurse -Include *.ps1, *.psm1) {
        $tokens = $null
        $errors = $null
        $tree = [System.Management.Automation.Language.Parser]::ParseFile($file.FullName, [ref]$tokens, [ref]$errors)
        $code = @($tokens | Where-Object { $_.Kind -notin 'Comment', 'NewLine', 'LineContinuation', 'EndOfInput' })
        foreach ($function in $tree.FindAll({ param($node) $node -is [System.Management.Automation.Language.FunctionDefinitionAst] }, $true)) {
            $start = $function.Extent.StartOffset
            $end = $function.Extent.EndOffset
            $lines = @($code | Where-Object { $_.Extent.StartOffset -ge $start -and $_.Extent.EndOffset -le $end } | ForEach-Object { $_.Extent.StartLineNumber } | Sort-Object -Unique).Count
            [pscustomobject]@{ Name = $function.Name; File = $file.Name; Ast = $function; CodeLines = $lines }
        }
    }
    $script:public = @($script:functions | Where-Object Name -In $exported)

    function Get-CmdletBinding {
        # The function's [CmdletBinding(...)] attribute, if it has one.
        param($Function)
        $param = $Function.Ast.Body.ParamBlock
        if ($null -eq $param) { return $null }
        $param.Attributes | Where-Object { $_.TypeName.Name -eq 'CmdletBinding' } | Select-Object -First 1
    }

    function Test-SupportsShouldProcess {
        param($Function)
        $binding = Get-CmdletBinding $Function
        if ($null -eq $binding) { return $false }
        foreach ($argument in $binding.NamedArguments) {
            if ($argument.ArgumentName -eq 'SupportsShouldProcess') {
                return $argument.ExpressionOmitted -or $argument.Argument.Extent.Text -ne '$false'
            }
        }
        $false
    }

    function Get-Suppression {
        # The analyzer rules the function suppresses, with their justifications.
        param($Function)
        $attributes = @($Function.Ast.Body.ParamBlock.Attributes) | Where-Object { $_.TypeName.Name -match 'SuppressMessage(Attribute)?$' }
        foreach ($attribute in $attributes) {
            $justification = ($attribute.NamedArguments | Where-Object ArgumentName -EQ 'Justification').Argument.Value
            [pscustomobject]@{ Rule = $attribute.PositionalArguments[0].Value; Justification = $justification }
        }
    }
}

Describe 'every file of the module parses, and is clean text' {
    It '<Name> has no syntax error and no trailing whitespace' -ForEach $files {
        $tokens = $null
        $errors = $null
        [void][System.Management.Automation.Language.Parser]::ParseFile($Path, [ref]$tokens, [ref]$errors)
        @($errors | ForEach-Object { "$($_.Extent.StartLineNumber): $($_.Message)" }) | Should -BeNullOrEmpty
        $lines = [System.IO.File]::ReadAllLines($Path)
        $trailing = for ($i = 0; $i -lt $lines.Count; $i++) { if ($lines[$i] -match '[ \t]+$') { $i + 1 } }
        @($trailing) | Should -BeNullOrEmpty -Because "lines of $Name end in whitespace"
    }
}

Describe 'the commands, as the analyzer would read them' {
    It 'exports only functions it defines, with approved verbs (or a stated reason)' {
        $approved = @(Get-Verb | ForEach-Object Verb)
        $exported.Count | Should -Be $script:public.Count
        $unapproved = foreach ($function in $script:public) {
            $verb = $function.Name.Split('-')[0]
            $reasoned = @(Get-Suppression $function | Where-Object { $_.Rule -eq 'PSUseApprovedVerbs' -and $_.Justification })
            if ($verb -notin $approved -and $reasoned.Count -eq 0) { $function.Name }
        }
        @($unapproved) | Should -BeNullOrEmpty
    }

    It 'gives every exported command a synopsis, an example, and help for each parameter' {
        $missing = foreach ($function in $script:public) {
            $help = $function.Ast.GetHelpContent()
            if ($null -eq $help -or [string]::IsNullOrWhiteSpace($help.Synopsis)) { "$($function.Name): no .SYNOPSIS"; continue }
            if ($help.Examples.Count -eq 0) { "$($function.Name): no .EXAMPLE" }
            $parameters = @($function.Ast.Body.ParamBlock.Parameters | ForEach-Object { $_.Name.VariablePath.UserPath })
            foreach ($parameter in $parameters) {
                if (-not $help.Parameters.ContainsKey($parameter.ToUpperInvariant())) { "$($function.Name): no .PARAMETER $parameter" }
            }
        }
        @($missing) | Should -BeNullOrEmpty
    }

    It 'calls ShouldProcess in every command that declares SupportsShouldProcess (itself, or in a helper given $PSCmdlet)' {
        $asks = {
            param($Function)
            @($Function.Ast.Body.FindAll({
                        param($node)
                        $node -is [System.Management.Automation.Language.InvokeMemberExpressionAst] -and
                        $node.Member.Extent.Text -in @('ShouldProcess', 'ShouldContinue')
                    }, $true)).Count -gt 0
        }
        # The module's helpers that ask on behalf of the command whose $PSCmdlet they are given.
        $deciders = @($script:functions | Where-Object { $_.Name -notin $exported -and (& $asks $_) } | ForEach-Object Name)
        $declared = @($script:functions | Where-Object { Test-SupportsShouldProcess $_ })
        $declared.Count | Should -BeGreaterThan 5
        $silent = foreach ($function in $declared) {
            if (& $asks $function) { continue }
            $delegated = @($function.Ast.Body.FindAll({
                        param($node)
                        $node -is [System.Management.Automation.Language.CommandAst] -and
                        $node.GetCommandName() -in $deciders -and
                        $node.CommandElements.Extent.Text -contains '$PSCmdlet'
                    }, $true))
            if ($delegated.Count -eq 0) { $function.Name }
        }
        @($silent) | Should -BeNullOrEmpty
    }

    It 'declares SupportsShouldProcess on every exported command whose verb changes state' {
        # The verbs PSUseShouldProcessForStateChangingFunctions names.
        $changing = 'New', 'Set', 'Remove', 'Start', 'Stop', 'Restart', 'Reset', 'Update'
        $unguarded = foreach ($function in $script:public) {
            $verb = $function.Name.Split('-')[0]
            $reasoned = @(Get-Suppression $function | Where-Object { $_.Rule -eq 'PSUseShouldProcessForStateChangingFunctions' -and $_.Justification })
            if ($verb -in $changing -and -not (Test-SupportsShouldProcess $function) -and $reasoned.Count -eq 0) { $function.Name }
        }
        @($unguarded) | Should -BeNullOrEmpty
    }

    It 'says why, in a justification, wherever it suppresses a rule' {
        $unexplained = foreach ($function in $script:functions) {
            foreach ($suppression in @(Get-Suppression $function)) {
                if ([string]::IsNullOrWhiteSpace($suppression.Justification)) { "$($function.Name): $($suppression.Rule)" }
            }
        }
        @($unexplained) | Should -BeNullOrEmpty
    }

    It 'keeps every function to 60 lines of code, so each is read whole on one screen' {
        # 60 lines of code (its param block included; blank lines, comments and help not counted):
        # what one screen shows, so a maintainer reads a command or helper whole, and a command that
        # does two things (Start-PassportalFake's npm command and image) is split into helpers
        # named for each. The analyzer has no such rule; Pester's and PSFramework's functions keep
        # to about this size.
        $long = foreach ($function in $script:functions) {
            if ($function.CodeLines -gt 60) { "$($function.Name) ($($function.File)): $($function.CodeLines) lines of code" }
        }
        $script:functions.Count | Should -BeGreaterThan 60
        @($long) | Should -BeNullOrEmpty
    }

    It 'sends HTTP from one function only (Send-FakeHttp), so every call shares its client and its failures' {
        $senders = foreach ($function in $script:functions) {
            $calls = $function.Ast.Body.FindAll({
                    param($node)
                    ($node -is [System.Management.Automation.Language.InvokeMemberExpressionAst] -and $node.Member.Extent.Text -match '^(Send|Get|Post|Put|Delete|Patch)Async$') -or
                    ($node -is [System.Management.Automation.Language.CommandAst] -and $node.GetCommandName() -in @('Invoke-RestMethod', 'Invoke-WebRequest'))
                }, $true)
            if (@($calls).Count -gt 0) { $function.Name }
        }
        @($senders | Sort-Object -Unique) | Should -Be @('Send-FakeHttp')
    }

    It 'calls commands by their names: no alias and no Write-Host in the module' {
        $found = foreach ($function in $script:functions) {
            $commands = $function.Ast.Body.FindAll({ param($node) $node -is [System.Management.Automation.Language.CommandAst] }, $true)
            foreach ($command in $commands) {
                $name = $command.GetCommandName()
                if (-not $name) { continue }
                if (Get-Alias -Name $name -ErrorAction SilentlyContinue) { "$($function.Name): alias $name" }
                if ($name -eq 'Write-Host') { "$($function.Name): Write-Host" }
            }
        }
        @($found) | Should -BeNullOrEmpty
    }
}
