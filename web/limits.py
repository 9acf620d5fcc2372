"""Rate limits on what attackers repeat: sign-in, sign-up, token creation, password reset.

Counted per client address and shared between a page and its API twin (the sign-in page and
POST /api/v1/auth/tokens draw on one allowance), so switching door buys nothing. The limits
are settings (LOGIN_RATE_LIMIT, ...); a refusal is 429 with Retry-After.
"""
from flask import current_app, request

from extensions import limiter


def _setting(name: str):
    return lambda: current_app.config[name]


def _not_post() -> bool:
    return request.method != "POST"


# Only failed attempts count: a user who types the password right is never slowed down, and
# the eleventh wrong one in a minute is refused even when it would have been right.
failed_sign_ins = limiter.shared_limit(
    _setting("LOGIN_RATE_LIMIT"), scope="sign-in", exempt_when=_not_post,
    deduct_when=lambda response: response.status_code == 401)

# Every attempt counts: refusals ("this email already has an account") reveal accounts.
sign_ups = limiter.shared_limit(
    _setting("SIGNUP_RATE_LIMIT"), scope="sign-up", exempt_when=_not_post)

new_tokens = limiter.shared_limit(
    _setting("TOKEN_RATE_LIMIT"), scope="new-token", exempt_when=_not_post,
    deduct_when=lambda response: response.status_code < 400)

password_resets = limiter.shared_limit(
    _setting("PASSWORD_RESET_RATE_LIMIT"), scope="password-reset", exempt_when=_not_post)
