// The MIME reader and writer behind the AL2023 and AL2 user data.
#include "cloud/aws/amifamily/mime.h"

#include <gtest/gtest.h>

namespace nodewright::cloud::aws::amifamily {
namespace {

TEST(MimeTest, WritesKarpentersLayout) {
  EXPECT_EQ(writeMimeArchive({mimePart(kContentTypeShellScript, "echo one\n"),
                              mimePart(kContentTypeNodeConfig, "kind: NodeConfig")}),
            "MIME-Version: 1.0\n"
            "Content-Type: multipart/mixed; boundary=\"//\"\n"
            "\n"
            "--//\n"
            "Content-Type: text/x-shellscript; charset=\"us-ascii\"\n"
            "\n"
            "echo one\n"
            "\n"
            "--//\n"
            "Content-Type: application/node.eks.aws\n"
            "\n"
            "kind: NodeConfig\n"
            "--//--\n");
}

TEST(MimeTest, ReadsWhatItWritesAndCrlfDocuments) {
  const std::vector<MimePart> parts = {mimePart(kContentTypeShellScript, "#!/bin/sh\necho a"),
                                       mimePart("text/cloud-config", "runcmd: []")};
  auto back = parseMimeArchive(writeMimeArchive(parts));
  ASSERT_TRUE(back) << back.error().message();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].content, "#!/bin/sh\necho a");
  EXPECT_EQ((*back)[1].contentType(), "text/cloud-config");

  auto crlf = parseMimeArchive(
      "MIME-Version: 1.0\r\nContent-Type: multipart/mixed;\r\n boundary=XYZ\r\n\r\n"
      "preamble\r\n--XYZ\r\ncontent-type: text/x-shellscript\r\nX-Extra: 1\r\n\r\n"
      "echo hi\r\n--XYZ--\r\nepilogue\r\n");
  ASSERT_TRUE(crlf) << crlf.error().message();
  ASSERT_EQ(crlf->size(), 1u);
  EXPECT_EQ((*crlf)[0].contentType(), "text/x-shellscript");
  EXPECT_EQ((*crlf)[0].headers.size(), 2u);
  EXPECT_EQ((*crlf)[0].content, "echo hi");
}

TEST(MimeTest, ChoosesAnotherBoundaryWhenContentHoldsTheDefault) {
  const std::string text = writeMimeArchive({mimePart("text/plain", "a\n--//\nb")});
  EXPECT_NE(text.find("boundary=\"//0\""), std::string::npos) << text;
  auto back = parseMimeArchive(text);
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ((*back)[0].content, "a\n--//\nb");
}

struct BadMime {
  std::string name;
  std::string text;
  std::string message;
};

class MimeRejectsTest : public ::testing::TestWithParam<BadMime> {};

TEST_P(MimeRejectsTest, NamingSpecUserDataWithoutQuotingIt) {
  auto parts = parseMimeArchive(GetParam().text);
  ASSERT_FALSE(parts);
  EXPECT_EQ(parts.error().code(), core::Code::Invalid);
  EXPECT_EQ(parts.error().message(), GetParam().message);
  EXPECT_EQ(parts.error().message().find("s3cr3t"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Documents, MimeRejectsTest,
    ::testing::Values(
        BadMime{"NoContentType", "MIME-Version: 1.0\n\ns3cr3t",
                "spec.userData: the MIME document has no Content-Type header"},
        BadMime{"NotMultipart", "Content-Type: text/plain\n\ns3cr3t",
                "spec.userData: the MIME document is not multipart"},
        BadMime{"NoBoundary", "Content-Type: multipart/mixed\n\ns3cr3t",
                "spec.userData: the multipart Content-Type has no boundary"},
        BadMime{"MalformedHeader", "Content-Type: multipart/mixed; boundary=b\ns3cr3t\n\n",
                "spec.userData: the document: malformed MIME header line"},
        BadMime{"MalformedPartHeader",
                "Content-Type: multipart/mixed; boundary=b\n\n--b\ns3cr3t\n\n--b--\n",
                "spec.userData: MIME part 1: malformed MIME header line"},
        BadMime{"Unterminated",
                "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: x\n\ns3cr3t\n",
                "spec.userData: the MIME document does not end with its closing boundary --b--"}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace nodewright::cloud::aws::amifamily
