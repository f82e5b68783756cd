#!/usr/bin/env python3
"""Writes a Goodreads library export with every quirk of the real one, deterministically.

    make_goodreads_export.py ROWS OUTPUT [--no-bom]

The header is Goodreads' own (24 columns). ISBNs are written Excel-style (="…"), some
empty (=""); reviews hold commas, doubled quotes and line breaks (<br/> and real
newlines); titles and authors carry accents and non-Latin scripts; some authors are
empty; some titles repeat under other Book Ids (editions). Every 97th row after the
first repeats an earlier Book Id, and every 89th row has no title: both are skipped on
import, with their line named. Lines end in CRLF, as Python's csv module writes them.

Used for Fixtures/import/goodreads_library_export.csv (220 rows, with a BOM) and for the
10,000-row import measurement in the README.
"""
import csv
import random
import sys

HEADER = ["Book Id", "Title", "Author", "Author l-f", "Additional Authors", "ISBN", "ISBN13", "My Rating",
          "Average Rating", "Publisher", "Binding", "Number of Pages", "Year Published",
          "Original Publication Year", "Date Read", "Date Added", "Bookshelves", "Bookshelves with positions",
          "Exclusive Shelf", "My Review", "Spoiler", "Private Notes", "Read Count", "Owned Copies"]

AUTHORS = ["Gabriel García Márquez", "Ursula K. Le Guin", "Frank Herbert", "Victor Hugo", "Haruki Murakami",
           "Fyodor Dostoevsky", "Chimamanda Ngozi Adichie", "Stanisław Lem", "Halldór Laxness", "村上春樹",
           "J.R.R. Tolkien", "Octavia E. Butler", "Italo Calvino", "Selma Lagerlöf", "Naguib Mahfouz", ""]
TITLES = ["Cien años de soledad", "The Left Hand of Darkness", "Dune", "Les Misérables", "Norwegian Wood",
          "Crime and Punishment", "Half of a Yellow Sun", "Solaris", "Independent People", "ノルウェイの森",
          "The Lion, the Witch and the Wardrobe", "Kindred", "If on a winter's night a traveler",
          "Gösta Berlings saga", "Palace Walk", "Dune"]
SHELVES = ["read", "read", "to-read", "currently-reading"]
REVIEWS = ["", "", "",
           "Loved it, every page.",
           "A slow start.<br/><br/>Then it \"clicks\", and you can't stop.",
           "First line.\nSecond line, with a comma.\n\nThird, after a blank line.",
           "Ça m'a plu — beaucoup. «Magnifique».",
           "  ",
           ]


def last_first(author):
    parts = author.split(" ")
    return author if len(parts) < 2 else parts[-1] + ", " + " ".join(parts[:-1])


def rows(count, rng):
    ids = []
    for index in range(count):
        book_id = str(1000 + index * 7)
        if index > 0 and index % 97 == 0:
            book_id = ids[index // 2]               # a repeated Book Id: skipped
        ids.append(book_id)
        author = AUTHORS[index % len(AUTHORS)]
        title = TITLES[index % len(TITLES)] if index % 89 != 5 else ""   # no title: skipped
        if index >= len(TITLES):
            title = title and f"{title} (vol. {index // len(TITLES)})"
        isbn13 = f"978{rng.randrange(10**9, 10**10)}"
        isbn = f'="{isbn13[3:]}"' if index % 5 else '=""'
        shelf = SHELVES[index % len(SHELVES)]
        review = REVIEWS[index % len(REVIEWS)]
        yield [book_id, title, author, last_first(author) if author else "", "", isbn, f'="{isbn13}"',
               str(rng.randrange(0, 6)), f"{rng.uniform(3, 5):.2f}", "Éditions, Publisher", "Paperback",
               str(rng.randrange(90, 900)), "2001", "1967", "2023/05/0%d" % (1 + index % 9) if shelf == "read" else "",
               "2022/01/15", "" if shelf == "read" else shelf, "" if shelf == "read" else f"{shelf} (#{index})",
               shelf, review, "", "", "1" if shelf == "read" else "0", "0"]


def main():
    count, output = int(sys.argv[1]), sys.argv[2]
    bom = "--no-bom" not in sys.argv[3:]
    rng = random.Random(14)
    with open(output, "w", encoding="utf-8-sig" if bom else "utf-8", newline="") as file:
        writer = csv.writer(file, quoting=csv.QUOTE_MINIMAL)
        writer.writerow(HEADER)
        for row in rows(count, rng):
            writer.writerow(row)


if __name__ == "__main__":
    main()
