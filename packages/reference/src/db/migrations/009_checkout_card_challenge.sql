-- A card that needs 3-D Secure waits on the challenge page (D73): the session remembers the method and what the
-- payment will keep of the card (last four digits and network, never the number) until the customer answers.
ALTER TABLE checkout_sessions ADD COLUMN card_challenge jsonb;
