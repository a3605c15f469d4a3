// ShareDocumentsTests
