"""E-mail addresses, user names, URLs and phone numbers.

E-mails and user names are usually made from the person's own name, in the many
shapes people pick (anna.rossi, a.rossi, rossi.anna+shop, anna_r84, AnnaRossi), at a
free provider of the country, the employer's domain (with a mail subdomain or a
national domain), and sometimes unrelated to the name at all, as in life. Phone
numbers are written nationally or internationally (+39, 0039, +44 (0)20), with spaces,
dashes, dots or brackets.
"""

from __future__ import annotations

from dataclasses import dataclass

from scraping.queries.values.identity import Identity, ascii_word, digits


def _name_parts(person: Identity) -> tuple[str, str]:
    first = ascii_word(person.first_name) or "user"
    last = ascii_word(person.last_name) or "mail"
    return first, last


def local_part(person: Identity) -> str:
    """What comes before the @: mostly made from the name."""
    first, last = _name_parts(person)
    year = f"{person.birth_date.year % 100:02d}"
    shapes = (
        f"{first}.{last}",
        f"{first}.{last}",
        f"{first}{last}",
        f"{first[0]}.{last}",
        f"{first[0]}{last}",
        f"{first}_{last}",
        f"{last}.{first}",
        f"{first}.{last}{year}",
        f"{first}{year}",
        f"{last}{first[0]}",
        f"{first}-{last}",
        f"{first}.{last}+{person.fake.word().lower()}",
        f"{person.fake.user_name()}",
        f"{first}.{person.random.randint(1, 999)}",
    )
    return ascii_or(person.random.choice(shapes), person.fake.user_name())


def ascii_or(text: str, fallback: str) -> str:
    return text if text.isascii() and text.strip(".-_+") else fallback


def _domain(person: Identity) -> str:
    roll = person.random.random()
    tld = person.random.choice(person.locale.tlds)
    company = ascii_word(person.employer.split(",")[0].split(" ")[0]) or person.fake.domain_word()
    if roll < 0.2:  # the reserved example domains (RFC 2606) of manuals and fictional texts
        return person.random.choice(
            (f"example.{tld}", f"{company}.example.{tld}", "example.com", "example.org")
        )
    if roll < 0.5:
        return person.fake.free_email_domain()
    if roll < 0.65:
        return f"{person.random.choice(('mail', 'eu', 'staff', 'corp'))}.{company}.{tld}"
    if roll < 0.9:
        return f"{company}.{tld}"
    return f"{person.fake.domain_word()}.{tld}"


def email(person: Identity) -> str:
    address = f"{local_part(person)}@{_domain(person)}"
    roll = person.random.random()
    if roll < 0.04:
        return address.upper()
    if roll < 0.09:
        local, domain = address.split("@")
        return ".".join(part.capitalize() for part in local.split(".")) + "@" + domain
    return address


def username(person: Identity) -> str:
    """A handle, without the @ that precedes it in chats."""
    first, last = _name_parts(person)
    year = person.birth_date.year
    shapes = (
        f"{first}{last}",
        f"{first}_{last}",
        f"{first}.{last}",
        f"{first[0]}{last}",
        f"{first}{year % 100:02d}",
        f"{last}{year}",
        f"{first}_{person.fake.word().lower()}",
        f"{person.fake.word().lower()}_{first}",
        f"{first.capitalize()}{last.capitalize()}",
        f"{first[:3]}{last[:3]}{person.random.randint(1, 99)}",
        person.fake.user_name(),
    )
    return ascii_or(person.random.choice(shapes), person.fake.user_name())


def url(person: Identity) -> str:
    """A personal page, a profile or a shared link; one span even with a user name in it."""
    first, last = _name_parts(person)
    user = username(person)
    scheme = person.random.choice(("https://", "https://", "http://", "https://www.", "www."))
    tld = person.random.choice(person.locale.tlds)
    shapes = (
        f"{scheme}{first}{last}.{tld}",
        f"{scheme}{person.fake.domain_name()}/{person.fake.uri_path()}",
        f"{scheme}{person.fake.domain_word()}.{tld}/u/{user}",
        f"{scheme}{person.fake.domain_word()}.com/in/{first}-{last}-{digits(person.fake, 4)}",
        f"{scheme}{person.fake.domain_word()}.{tld}/~{last}/",
        f"{scheme}{person.fake.domain_name()}/profile?id={digits(person.fake, 7)}",
        f"{scheme}{user}.{person.fake.domain_word()}.io",
        person.fake.url().rstrip("/"),
    )
    return person.random.choice(shapes)


@dataclass(frozen=True)
class PhoneFormat:
    """A country's phone numbers: calling code, the trunk prefix dropped abroad, and
    national number patterns (`#` a digit, `%` a digit but 0) with the groups people
    write."""

    calling_code: str
    trunk: str
    patterns: tuple[str, ...]

    def national(self, person: Identity) -> str:
        return person.fake.numerify(person.random.choice(self.patterns))


def phone(person: Identity) -> str:
    spec = person.locale.phone
    number = spec.national(person)
    inland = number[len(spec.trunk) :] if spec.trunk and number.startswith(spec.trunk) else number
    roll = person.random.random()
    if roll < 0.4:
        return number
    if roll < 0.6:
        return f"+{spec.calling_code} {inland}"
    if roll < 0.68 and spec.trunk:
        return f"+{spec.calling_code} ({spec.trunk}){inland}"
    if roll < 0.76:
        return f"00{spec.calling_code} {inland}"
    if roll < 0.84:
        return f"+{spec.calling_code}" + inland.replace(" ", "").replace("-", "")
    if roll < 0.92:
        return number.replace(" ", "-")
    return number.replace(" ", ".") if "(" not in number else number.replace(" ", "")
