"""The `url` rule: RFC 3986 normalization, and `scheme: "any"` (SPEC "Built-in normalizers")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalrunner.grade.norms import BUILTINS, bind
from evalrunner.model import NormSpec


def url(value, **options):
    return bind(NormSpec("url", options), BUILTINS).apply(value)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("HTTP://Example.COM/a", "http://example.com/a"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443", "https://example.com/"),
        ("http://example.com", "http://example.com/"),
        ("http://example.com/%7Euser/%41", "http://example.com/~user/A"),
        ("http://example.com/a%2fb", "http://example.com/a%2Fb"),
        ("http://example.com/a/./b/../c", "http://example.com/a/c"),
        ("http://%41.com", "http://a.com/"),
        ("http://[::1]:80/x", "http://[::1]/x"),
    ],
)
def test_the_same_url_after_normalization(a, b):
    assert url(a)[0] == url(b)[0]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("http://example.com/a", "http://example.com/a/"),  # another path
        ("http://example.com/?b=1&a=2", "http://example.com/?a=2&b=1"),  # query order kept
        ("http://example.com/A", "http://example.com/a"),  # paths are case-sensitive
        ("http://example.com:8080/", "http://example.com/"),
        ("http://www.dora-website.com", "https://www.dora-website.com"),  # without scheme any
    ],
)
def test_other_urls_stay_apart(a, b):
    assert url(a)[0] != url(b)[0]


def test_scheme_any_equates_http_https_and_no_scheme():
    forms = {
        url(v, scheme="any")[0]
        for v in (
            "http://www.dora-website.com",
            "www.dora-website.com",
            "https://www.dora-website.com/",
        )
    }
    assert forms == {"https://www.dora-website.com/"}
    assert url("mailto:Ops@x.io", scheme="any")[0] == "mailto:Ops@x.io"
    assert url("localhost:8080/x", scheme="any")[0] == "https://localhost:8080/x"


def test_what_it_cannot_read_is_compared_as_it_is():
    for value, options in (
        (42, {}),
        ("www.example.com", {}),
        ("/a/b", {"scheme": "any"}),
        ("Hello World", {"scheme": "any"}),  # no host holds a space: no URL, not a host's case
        ("http://a b.com/x", {}),
        ('http://x.com"/', {}),
    ):
        same, problem = url(value, **options)
        assert same == value and problem is not None and "cannot read" in problem


def test_free_text_is_not_equated_by_its_case_as_a_host():
    """With `scheme: "any"` a word without a scheme reads as a host, and hosts are lower-cased;
    text with a space is no host, so its case still counts."""
    assert url("Dora Website", scheme="any")[0] != url("dora website", scheme="any")[0]
    assert (
        url("WWW.Dora-Website.com", scheme="any")[0] == url("www.dora-website.com", scheme="any")[0]
    )


def test_scheme_takes_only_any():
    with pytest.raises(ValueError, match='scheme takes one value, "any"'):
        bind(NormSpec("url", {"scheme": "ftp"}), BUILTINS)


URLS = st.from_regex(
    r"((HTTPS?|https?|ftp|ws)://)?([A-Za-z0-9.-]|%[0-9a-fA-F]{2}){1,12}(:[0-9]{0,5})?"
    r"(/([A-Za-z0-9._~-]|%[0-9a-fA-F]{2}|\.\.?){0,6}){0,4}(\?[a-z=&%0-9]{0,8})?(#[a-z]{0,4})?",
    fullmatch=True,
)


@given(value=URLS, scheme=st.sampled_from([None, "any"]))
def test_idempotent_on_url_shaped_text(value, scheme):
    options = {"scheme": scheme} if scheme else {}
    once, problem = url(value, **options)
    twice, again = url(once, **options)
    assert twice == once
    assert again is None or problem is not None
