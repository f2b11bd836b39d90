"""The memory bench's data: facts told then asked about, contradicting updates, and questions never told.

Each pair is (persona, what the user says, a later question, the value that must be recalled). A persona
is one user's memory: its statements never contradict each other, so every fact stays current. The
phrasings vary on purpose; the questions use other words than the statements where a person would.
"""

from __future__ import annotations

FACTS: list[tuple[str, str, str, str]] = [
    ("A", "My name is Priya.", "What's my name?", "Priya"),
    ("A", "I live in Lisbon.", "Which city do I live in?", "Lisbon"),
    ("A", "I work as a pharmacist.", "What do I do for work?", "pharmacist"),
    ("A", "My sister's name is Anna.", "What is my sister called?", "Anna"),
    ("A", "I have a dog named Biscuit.", "What's my dog's name?", "Biscuit"),
    ("A", "My favourite colour is teal.", "What's my favorite color?", "teal"),
    ("A", "I'm allergic to peanuts.", "Do I have any allergies?", "peanuts"),
    ("A", "I'm vegetarian.", "Do I eat meat?", "vegetarian"),
    ("A", "My birthday is on March 3rd.", "When is my birthday?", "March 3rd"),
    ("A", "I'm 34 years old.", "How old am I?", "34"),
    ("A", "I speak Portuguese.", "Which languages do I speak?", "Portuguese"),
    ("A", "I drive a Volvo.", "What car do I have?", "Volvo"),
    ("A", "My husband is called Marco.", "What's my husband's name?", "Marco"),
    ("A", "I grew up in Porto.", "Where am I originally from?", "Porto"),
    ("A", "I love rock climbing.", "What do I like doing in my free time?", "rock climbing"),
    ("A", "I hate cilantro.", "Is there any food I dislike?", "cilantro"),
    ("A", "My favourite band is Radiohead.", "Who is my favourite band?", "Radiohead"),
    ("A", "I work at Siemens.", "Which company do I work for?", "Siemens"),
    ("A", "My best friend is named Tomas.", "Who is my best friend?", "Tomas"),
    ("A", "I have a cat called Miso.", "Do I have a cat?", "Miso"),
    ("A", "My mom's name is Leonor.", "What is my mother's name?", "Leonor"),
    ("A", "My dad is called Rui.", "What's my father called?", "Rui"),
    ("A", "My favourite food is ramen.", "What food do I like best?", "ramen"),
    ("A", "I'm into chess.", "Any hobbies of mine you know?", "chess"),
    ("A", "My boss is named Helga.", "Who's my boss?", "Helga"),
    ("B", "I was born on June 12th.", "What's my date of birth?", "June 12th"),
    ("B", "My brother's name is Diego.", "What's my brother called?", "Diego"),
    ("B", "I enjoy baking bread.", "What do I enjoy?", "baking bread"),
    ("B", "My favourite movie is Alien.", "What's my favourite film?", "Alien"),
    ("B", "I'm from Recife.", "Where did I grow up?", "Recife"),
    ("B", "I work as a nurse.", "What's my job?", "nurse"),
    ("B", "My daughter is called Lina.", "What's my daughter's name?", "Lina"),
    ("B", "My son's name is Theo.", "What's my son called?", "Theo"),
    ("B", "I'm allergic to cats.", "What am I allergic to?", "cats"),
    ("B", "My favourite season is autumn.", "Which season do I like most?", "autumn"),
    ("B", "I speak a little Japanese.", "Do I speak Japanese?", "Japanese"),
    ("B", "My girlfriend's name is Sofia.", "Who is my girlfriend?", "Sofia"),
    ("B", "I'm living in Seattle these days.", "Where do I live?", "Seattle"),
    ("B", "My favourite drink is mint tea.", "What do I like to drink?", "mint tea"),
    ("B", "I love jazz.", "What kind of music do I love?", "jazz"),
    ("B", "My partner is called Sam.", "What's my partner's name?", "Sam"),
    ("C", "I'm a carpenter by trade.", "What is my profession?", "carpenter"),
]

# (earlier statement, later contradicting statement, question, new value, old value)
UPDATES: list[tuple[str, str, str, str, str]] = [
    ("I live in Oslo.", "I moved to Bergen last month.", "Where do I live now?", "Bergen", "Oslo"),
    ("I work as a teacher.", "I'm now working as a translator.", "What's my job these days?", "translator", "teacher"),
    ("My favourite colour is red.", "My favourite colour is now purple.", "What's my favourite colour?", "purple", "red"),
    ("I drive a Fiat.", "I now drive a Tesla.", "What car do I drive?", "Tesla", "Fiat"),
    ("I'm 29 years old.", "I just turned 30.", "How old am I?", "30", "29"),
    ("My boss is called Frank.", "My boss is named Olga now.", "Who is my boss?", "Olga", "Frank"),
    ("I work at Google.", "I just joined Spotify.", "Where do I work?", "Spotify", "Google"),
    ("My favourite food is pizza.", "My new favourite food is sushi.", "What's my favourite food?", "sushi", "pizza"),
    ("I'm vegetarian.", "I'm vegan now.", "What's my diet?", "vegan", "vegetarian"),
    ("My partner is called Alex.", "My partner's name is Jordan.", "Who is my partner?", "Jordan", "Alex"),
    ("My favourite band is Muse.", "My favourite band is Coldplay these days.", "Which band do I like best?", "Coldplay", "Muse"),
    ("I'm living in Madrid.", "I relocated to Valencia.", "Which city am I in?", "Valencia", "Madrid"),
]

# Asked with everything above already told: none of these was ever said.
NEVER_TOLD: list[str] = [
    "What's my cousin's name?",
    "What's my favourite book?",
    "Where did I go on holiday last year?",
    "What is my phone number?",
    "Do I have a grandmother?",
    "What's my favourite sport?",
    "What's my uncle called?",
    "Which university did I attend?",
    "What's my wife's name?",
    "What instrument do I play?",
    "What's my neighbour's name?",
    "What's my blood type?",
]
