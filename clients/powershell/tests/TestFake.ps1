# How the module's tests start the fake: the image named by PASSPORTAL_FAKE_IMAGE (the CI's image
# run), else the npm command of this repository (-UseNode). Dot-sourced in BeforeAll.
Import-Module (Join-Path $PSScriptRoot '../PassportalFake/PassportalFake.psd1') -Force

function Get-TestFakeStart {
    if ($env:PASSPORTAL_FAKE_IMAGE) { return @{ Image = $env:PASSPORTAL_FAKE_IMAGE } }
    @{ UseNode = $true }
}

function Invoke-DocumentsList {
    # A documents list with a token, as a client sends it; the answer's status and body, never thrown.
    param($Target, [string] $Token, [string] $Query = 'pageNum=1')
    $response = Invoke-WebRequest -Uri "$($Target.BaseUrl)/api/v2/documents?$Query" -Headers @{ 'x-access-token' = $Token } -SkipHttpErrorCheck -NoProxy
    [pscustomobject]@{ Status = [int]$response.StatusCode; Body = $response.Content; Headers = $response.Headers }
}
