"""Who is asking and what they may see: password sign-in, page sessions, API and device tokens, user accounts and
declared conflicts (art. 214), role scopes and get-or-404, and calendar feed secrets; its faces are the sign-in,
account and user pages and the auth and users API.
"""
from inspection.accounts.access import get_owner_for, get_vessel_for, owner_scope, vessel_scope
from inspection.accounts.auth import api_user, authenticate, require, require_page
from inspection.accounts.users import create_user

__all__ = ["require", "require_page", "api_user", "authenticate", "vessel_scope", "owner_scope", "get_vessel_for", "get_owner_for", "create_user"]
