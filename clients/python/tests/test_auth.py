import pytest

from helpers import KEY_ID, SECRET

from passportal_fake import ApiError, get_token, sign


def test_sign_is_lower_case_hex_hmac_sha256():
    assert sign("secret", "api-content-hash") == "adb7d285c09c582d25e57ab006b0a5607e317fdd90d56d782ae602f521ec6e5f"


@pytest.mark.parametrize("form", [False, True], ids=["json", "form"])
def test_get_token_exchanges_a_key_for_a_token(passportal_session, form):
    token = get_token(passportal_session.base_url, KEY_ID, SECRET, form=form)
    assert token["success"] in (True, "true")
    assert len(token["access_token"]) > 10
    assert int(token["expiry_time"]) > 0
    [entry] = passportal_session.admin.requests(path="/api/v2/auth/client_token")["requests"]
    assert entry["status"] == 200


def test_a_wrong_secret_raises_with_the_vendor_message(passportal_session):
    with pytest.raises(ApiError) as caught:
        get_token(passportal_session.base_url, KEY_ID, "not-the-secret")
    assert caught.value.status == 401
    assert caught.value.message.startswith("Key verification failed")
    assert caught.value.body["code"] == 1000
