-- Credential changes are announced on the channel paygate_credentials (payload: the client id), so every gateway
-- process drops its cached verification of that credential when the change commits (D67). A trigger, not the
-- services, sends it: rotation, revocation, a changed partner secret and a hand-written UPDATE are all covered.
CREATE FUNCTION paygate_notify_credential_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('paygate_credentials', OLD.client_id);
  RETURN NULL;
END;
$$;

CREATE TRIGGER credentials_notify_change
  AFTER UPDATE OR DELETE ON credentials
  FOR EACH ROW EXECUTE FUNCTION paygate_notify_credential_change();
